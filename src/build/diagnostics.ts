// Turns compiler, linker and `patch` output into Diagnostic values. The build runs in a private
// workspace, so file names in the output point into that workspace (absolute, or relative to the
// directory make was in); they are mapped back to FileMapping ids so the rest of the tool can speak
// about the user's files. gcc and clang differ in wording, quoting (UTF-8 curly quotes under a UTF-8
// locale) and colour, so everything is normalised before it is matched.
import path from 'node:path';
import { isPseudoDirective, parseDirective } from '../patch/openmp.js';
import {
  isBuildFailure,
  type Diagnostic,
  type DotDiscopop,
  type ErrorClass,
  type SourceFile,
} from '../formats/types.js';
type Severity = Diagnostic['severity'];
type Parsed = Omit<Diagnostic, 'notes'>;

// `file:line:col: severity: message`; clang and gcc both print it, gcc sometimes without a column.
const LOCATED = /^(?<file>.+?):(?<line>\d+):(?:(?<col>\d+):)? (?<sev>fatal error|error|warning|note): (?<msg>.*)$/;
// `collect2: error: ...`, `clang: error: ...`, `cc1: fatal error: ...`: a tool speaking without a place.
const UNLOCATED = /^(?<file>[^\s:][^:]*?): (?<sev>fatal error|error|warning|note): (?<msg>.*)$/;
// `main.c:(.text+0x39): undefined reference to `f'` — the linker names the source file of the object.
const LINKER_SECTION = /^(?:\S*ld(?:\.\w+)?: )?(?<file>[^:\s]+):\([^)]*\): (?<msg>.+)$/;
// `/usr/bin/ld: cannot find -lfoo`, `ld.lld: error: undefined symbol: f`.
const LINKER_BARE = /^(?:\/\S+\/)?(?:ld|ld\.\w+|lld|collect2): (?<msg>.+)$/;
const MAKE_DIRECTORY = /^g?make(?:\[\d+\])?: (?<what>Entering|Leaving) directory [`'‘](?<dir>.*)['’]$/;
// ld's `in function 'main':` headers carry no problem of their own.
const LINKER_CONTEXT = / in function [`'‘].*['’]:$/;

const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

/** Removes terminal colour codes that `-fdiagnostics-color=always` or a forced tty leave in the output. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/**
 * Every diagnostic in `output`, in the order printed, each with the notes printed right after it
 * (a note with nothing before it stands on its own). `file` is the project-relative path (forward
 * slashes) when the file is one of the project's mapped files, else the name as printed; `fileId`
 * is its FileMapping id. Relative names are resolved against the directory make reports it entered,
 * else against `workspaceRoot`, where the build ran. Messages get ASCII quotes: gcc under a UTF-8
 * locale prints ‘…’, clang never does, and the same mistake should read the same from both.
 */
export function parseDiagnostics(output: string, dp: DotDiscopop, workspaceRoot: string): Diagnostic[] {
  const locate = fileLocator(dp, workspaceRoot);
  const directories: string[] = [];
  const diagnostics: Diagnostic[] = [];

  for (const rawLine of stripAnsi(output).split(/\r?\n/)) {
    const line = rawLine.trimEnd();
    const make = MAKE_DIRECTORY.exec(line)?.groups;
    if (make) {
      if (make.what === 'Entering') directories.push(make.dir ?? '');
      else directories.pop();
      continue;
    }
    const cwd = directories.at(-1) ?? workspaceRoot;
    const parsed = parseLine(line);
    if (!parsed) continue;
    const source = locate(parsed.file, cwd);
    const located: Parsed = source ? { ...parsed, file: source.relPath, fileId: source.id } : parsed;
    const owner = diagnostics.at(-1);
    if (located.severity === 'note' && owner !== undefined && owner.severity !== 'note') {
      const { severity: _severity, errorClass: _errorClass, ...note } = located;
      owner.notes.push(note);
    } else {
      diagnostics.push({ ...located, notes: [] });
    }
  }
  return diagnostics;
}

/**
 * The first diagnostic that fails the build (an error, or a warning judgeDiagnostics marked), in
 * the order printed; it decides a build's error class.
 */
export function firstError(diagnostics: readonly Diagnostic[]): Diagnostic | undefined {
  return diagnostics.find(isBuildFailure);
}

/** Lines a built patch set added (1-based, numbered as in the patched file), by FileMapping id. */
export type AddedLines = ReadonlyMap<string, ReadonlySet<number>>;
/** The added `#pragma omp` lines (1-based, patched numbering) with their text, by FileMapping id. */
export type AddedDirectives = ReadonlyMap<string, ReadonlyMap<number, string>>;

// Warnings by which gcc 12 or clang 14 say they dropped an OpenMP directive or part of one, as
// recorded under fixtures/diagnostics/. gcc drops a directive it does not know only with
// -Wunknown-pragmas (part of -Wall) enabled, and says nothing otherwise.
const IGNORED_DIRECTIVE: readonly RegExp[] = [
  /^extra tokens at the end of '#pragma omp [^']+' are ignored/,
  /^ignoring '#pragma omp [^']+'(?: \[-Wunknown-pragmas\])?$/,
  /^aligned clause will be ignored because/,
  /^directive with only 'device_type' clauses ignored/,
  /in a `declare variant`; (?:set|selector|property) ignored/,
];

/** The warning says the compiler dropped an OpenMP directive or part of one. */
export function ignoresDirective(message: string): boolean {
  return IGNORED_DIRECTIVE.some((pattern) => pattern.test(message));
}

/**
 * The one rule for which warnings fail a build: a warning that an OpenMP directive, or part of
 * it, was ignored fails it when it stands on a line the built patch set added (a directive the
 * generated patch adds, or one a candidate keeps): the program would run without the
 * parallelization the patch proposes, so passing would be a false pass. Any other warning, and
 * every warning on the user's own lines, leaves the build as the exit status says. The marked
 * copies keep their severity: the output says `warning:`, and so do they.
 */
export function judgeDiagnostics(diagnostics: readonly Diagnostic[], added: AddedLines): Diagnostic[] {
  return diagnostics.map((d) => {
    if (d.severity !== 'warning' || d.fileId === undefined || d.line === undefined) return d;
    if (!added.get(d.fileId)?.has(d.line) || !ignoresDirective(d.message)) return d;
    return { ...d, failsBuild: true };
  });
}

/**
 * clang parses the statement right below a loop directive as the loop it expects: a declaration
 * there reads "expected expression", a block's closing brace "expected statement". gcc says "for
 * statement expected before …" for both.
 */
const PARSED_AS_LOOP = /^expected (?:expression|statement)$/;

/**
 * A `#pragma omp task` directly above a closing brace, its statement below the brace: DiscoPoP's
 * task region closes its `{` before the last task's statement. gcc: "expected expression before '}'
 * token" (g++: "primary-expression"), clang: "expected statement", both on the brace.
 */
const TASK_WITHOUT_STATEMENT = /^expected (?:statement|(?:primary-)?expression before '\}' token)$/;

/**
 * Classes from where a diagnostic points, where the text alone says too little (design.md, Error
 * classes): an error that clang's parser raises on the line right below a `#pragma omp` line the
 * patch set added is the misplaced directive gcc names `directive-not-before-loop`, so the same
 * mistake gets the same class under both compilers (below a `task` directive it is the task
 * region's misplaced closing brace, `task-region-brace`); an error whose words name no class (gcc's
 * "'parts' does not have pointer or array type", clang's "subscripted value is not an array or
 * pointer") with its column on an entry of an added directive's `reduction` clause is
 * `invalid-reduction`; every error on an added line that is DiscoPoP's device-update
 * pseudo-directive is `pseudo-directive`. `directives`: the added `#pragma omp` lines with their
 * text, by file id.
 */
export function classifyByPosition(diagnostics: readonly Diagnostic[], directives: AddedDirectives): Diagnostic[] {
  return diagnostics.map((d) => {
    if (d.fileId === undefined || d.line === undefined) return d;
    const lines = directives.get(d.fileId);
    // gcc reads its `Device` as a misspelt clause, clang as extra tokens: by the words alone it
    // would be `unknown-clause`, which a clause edit repairs, and no clause edit repairs this line.
    const text = lines?.get(d.line);
    if (text !== undefined && isPseudoDirective(text)) return { ...d, errorClass: 'pseudo-directive' };
    if (d.errorClass !== 'other') return d;
    const above = lines?.get(d.line - 1);
    if (above !== undefined && TASK_WITHOUT_STATEMENT.test(d.message) && parseDirective(above)?.construct === 'task')
      return { ...d, errorClass: 'task-region-brace' };
    if (PARSED_AS_LOOP.test(d.message) && above !== undefined) return { ...d, errorClass: 'directive-not-before-loop' };
    if (text !== undefined && d.column !== undefined && clauseAt(text, d.column - 1) === 'reduction')
      return { ...d, errorClass: 'invalid-reduction' };
    // `shared(A,+:B)` from older explorer output: a reduction written into another list.
    if (
      text !== undefined &&
      d.column !== undefined &&
      LIST_WITH_REDUCTION_ENTRY.test(text) &&
      LISTS.has(clauseAt(text, d.column - 1) ?? '')
    )
      return { ...d, errorClass: 'invalid-reduction' };
    return d;
  });
}

const LISTS = new Set(['shared', 'private', 'firstprivate', 'lastprivate']);
const LIST_WITH_REDUCTION_ENTRY =
  /\b(?:shared|private|firstprivate|lastprivate)\s*\((?:[^()]*,)?\s*(?:[-+*&|^]|&&|\|\||max|min)\s*:/;

/** The clause (its name or parentheses) at `index` of a directive line, if any: gcc may point at its '('. */
function clauseAt(line: string, index: number): string | null {
  for (const clause of line.matchAll(/\b([a-z_]+)\s*\(/g)) {
    let depth = 0;
    for (let at = clause.index + clause[0].length - 1; at < line.length; at++) {
      if (line[at] === '(') depth++;
      else if (line[at] === ')' && --depth === 0) {
        if (index >= clause.index && index <= at) return clause[1]!;
        break;
      }
    }
  }
  return null;
}

function parseLine(line: string): Parsed | undefined {
  const located = LOCATED.exec(line)?.groups;
  if (located) {
    const message = asciiQuotes(located.msg ?? '');
    return {
      file: located.file ?? '',
      line: Number(located.line),
      ...(located.col === undefined ? {} : { column: Number(located.col) }),
      severity: located.sev as Severity,
      message,
      errorClass: classifyError(message),
    };
  }
  if (LINKER_CONTEXT.test(line)) return undefined;
  const linked = LINKER_SECTION.exec(line)?.groups;
  if (linked) {
    const message = asciiQuotes(linked.msg ?? '');
    return { file: linked.file ?? '', severity: 'error', message, errorClass: 'link' };
  }
  const bare = LINKER_BARE.exec(line)?.groups;
  if (bare && !UNLOCATED.test(line)) {
    const message = asciiQuotes(bare.msg ?? '');
    return { file: 'ld', severity: 'error', message, errorClass: 'link' };
  }
  const tool = UNLOCATED.exec(line)?.groups;
  if (tool) {
    const message = asciiQuotes(tool.msg ?? '');
    return { file: tool.file ?? '', severity: tool.sev as Severity, message, errorClass: classifyError(message) };
  }
  return undefined;
}

/**
 * Maps a file name from the build output to a project file. The workspace is a copy of the project
 * root, so a path under either root names the same relative file. Names that resolve to nothing
 * known (a script that cd'ed without make saying so) fall back to the one mapped file they end with.
 */
function fileLocator(dp: DotDiscopop, workspaceRoot: string): (printed: string, cwd: string) => SourceFile | undefined {
  const byRelPath = new Map<string, SourceFile>();
  for (const source of dp.files.values()) byRelPath.set(source.relPath, source);
  const roots = [workspaceRoot, dp.projectRoot].map((root) => path.resolve(root));

  return (printed, cwd) => {
    const absolute = path.resolve(cwd, printed);
    for (const root of roots) {
      const relative = path.relative(root, absolute);
      if (relative.startsWith('..') || path.isAbsolute(relative)) continue;
      const found = byRelPath.get(relative.split(path.sep).join('/'));
      if (found) return found;
    }
    if (path.isAbsolute(printed)) return undefined;
    const tail = path.posix.normalize(printed.split(path.sep).join('/')).replace(/^(\.\/)+/, '');
    const candidates = [...byRelPath.values()].filter((s) => s.relPath === tail || s.relPath.endsWith(`/${tail}`));
    return candidates.length === 1 ? candidates[0] : undefined;
  };
}

// First match wins, so narrower wordings come before the broader ones they overlap with (clang's
// "unexpected OpenMP clause 'shared' in directive" is a known clause in the wrong place, not an
// unknown one). Each entry lists the gcc wording, then clang's, as the compilers print them.
const CLASS_RULES: ReadonlyArray<readonly [RegExp, ErrorClass]> = [
  [
    /Hunk #\d+ FAILED|can't find file to patch|malformed patch|Only garbage was found in the patch input|Reversed \(or previously applied\) patch detected|unexpected end of file in patch/,
    'patch-does-not-apply',
  ],
  [
    /undefined reference to|multiple definition of|ld returned \d+ exit status|linker command failed|cannot find -l|undefined symbol: /,
    'link',
  ],
  // clang says "expected variable name or data member of current class" for `this` and for any
  // other non-variable inside a member function; both are repaired by dropping the entry.
  [/'this' allowed in OpenMP only|expected variable name or data member of current class/, 'this-in-clause'],
  [
    /appears more than once in data clauses|appears both in data and map clauses|\b(?:private|shared|firstprivate|lastprivate|reduction|linear) variable cannot be (?:private|shared|firstprivate|lastprivate|reduction|linear)\b|variable can appear only once in OpenMP/,
    'duplicate-data-sharing',
  ],
  // The iteration variable is predetermined private; no other data-sharing clause may name it.
  // gcc 8 and older predetermine a const object shared and reject it in shared/private (recorded
  // wording from gcc's test suite; gcc 8 is not installable here).
  [
    /iteration variable '[^']+' should not be|loop iteration variable in the associated loop of '[^']+' directive may not be|'const' qualified '[^']*'(?: without 'mutable' member)? may appear only in|const-qualified variable cannot be|use of deleted function|call to deleted constructor|no matching constructor for initialization of|no matching function for call to '(?:[\w:]+::)?(\w+)(?:<[^']*>)?::\1\(\)'|has (?:an )?incomplete type|variable (?:of|with) incomplete type|invalid use of array with unspecified bounds|^'[^']+' is predetermined 'shared' for '(?:shared|private|firstprivate|lastprivate)'$/,
    'invalid-privatization',
  ],
  // clang rejects `reduction(+:s)` on a struct and `reduction(^:d)` on a double only through the
  // combiner it cannot build ("invalid operands to binary expression"). The unpatched project
  // compiled, so in a patched build that wording comes from the added reduction clause.
  [
    /user defined reduction not found|has invalid type for 'reduction|is not valid for specified reduction operation|invalid operands to binary expression|reduction variable must be shared/,
    'invalid-reduction',
  ],
  [/is not valid for '#pragma omp|unexpected OpenMP clause '[^']+' in directive/, 'clause-not-allowed'],
  // gcc rejects a misspelt clause; clang only warns that it ignores the rest of the line. A
  // directive name neither knows is the same mistake one word earlier: clang rejects it, gcc drops
  // the whole directive (with -Wunknown-pragmas saying so).
  [
    /expected '#pragma omp' clause before|extra tokens at the end of '#pragma omp|expected an OpenMP clause|unknown OpenMP clause|^ignoring '#pragma omp [^']+'(?: \[-Wunknown-pragmas\])?$|^expected an OpenMP directive/,
    'unknown-clause',
  ],
  // gcc rejects a collapsed nest whose inner bound reads an outer index of another type; clang
  // builds it.
  [
    /not enough (?:perfectly nested |for )?loops|collapsed loops not perfectly nested|expected \d+ for loops after '#pragma omp|^outer iteration variable '[^']+' used in .* has type other than/,
    'collapse-not-nested',
  ],
  [/for statement expected before|statement after '#pragma omp [^']*' must be a for loop/, 'directive-not-before-loop'],
  [
    /invalid controlling predicate|missing controlling predicate|invalid increment expression|missing increment expression|invalid type for iteration variable|expected iteration declaration or initialization|condition of OpenMP for loop must be|increment clause of OpenMP for loop|increment expression must cause|initialization clause of OpenMP for loop is not in canonical form|variable must be of integer or pointer type/,
    'non-canonical-loop',
  ],
  [
    /break statement used with OpenMP for loop|'break' statement cannot be used in OpenMP for loop|invalid (?:branch to\/from|exit from|entry to) OpenMP structured block|cannot return from OpenMP region/,
    'early-exit',
  ],
  // One class for every name that is not in scope at the pragma (body local, for-init index,
  // bare member name, IR name): gcc and clang word them all alike.
  // A member access (`a.sum`, `this->total`, IR names like `in.addr`) is not a list item: gcc
  // stops at the `.`/`->`, clang asks for a variable name.
  [
    /undeclared \(first use in this function\)|expected '\)' before '(?:\.|->)' token|expected variable name(?:, (?:data member of current class, )?array element or array section)?$|member reference base type '[^']+' is not a structure or union|undeclared here \(not in a function\)|has not been declared|was not declared in this scope|use of undeclared identifier|is not a variable in clause/,
    'undeclared-in-clause',
  ],
];

function asciiQuotes(text: string): string {
  return text.replace(/[‘’]/g, "'");
}

/** The error class of one diagnostic message (gcc or clang, any quoting), from its text alone. */
export function classifyError(message: string): ErrorClass {
  const text = stripAnsi(message).replace(/[‘’`]/g, "'");
  for (const [pattern, errorClass] of CLASS_RULES) if (pattern.test(text)) return errorClass;
  return 'other';
}
