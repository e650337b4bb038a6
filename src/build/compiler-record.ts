// The compiler commands the reference build really ran. compile.sh may add flags the settings do
// not hold (`-DN=…`, `-I…`, `-std=…` written in the script itself or in its Makefile); the
// built-in repairer must preprocess a source with exactly those. The reference build therefore
// runs with a folder of small wrappers first on PATH, one per compiler name this machine has
// (gcc, cc, clang++, the settings' CC and CXX, …): each writes its argv and working folder to a
// file of its own call, complete the moment it appears (written aside, then renamed), so parallel
// make calls never interleave and screens can start while the build still runs; then it execs the
// real compiler with the folder taken off PATH wherever compile.sh has moved it (else the wrapper
// would find itself).
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { delimiter, isAbsolute, join, relative, resolve } from 'node:path';
import { leavesRoot } from './compile.js';
import { executablesOnPath } from '../process.js';

/** What the compiler reads from its environment: search paths, its own parts, reproducibility, messages. */
const RECORDED_ENV = [
  'PATH',
  'CPATH',
  'C_INCLUDE_PATH',
  'CPLUS_INCLUDE_PATH',
  'OBJC_INCLUDE_PATH',
  'LIBRARY_PATH',
  'COMPILER_PATH',
  'GCC_EXEC_PREFIX',
  'DEPENDENCIES_OUTPUT',
  'SUNPRO_DEPENDENCIES',
  'SOURCE_DATE_EPOCH',
  'TMPDIR',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'LC_MESSAGES',
  'GCC_COLORS',
  'OMPI_CC',
  'OMPI_CXX',
  'MPICH_CC',
  'MPICH_CXX',
];

const COMMON_COMPILERS = ['cc', 'c++', 'gcc', 'g++', 'clang', 'clang++'];

/** Options whose value is the next argument (`-I dir`, `-o out`). */
const SEPARATE_VALUE = new Set([
  '-o',
  '-I',
  '-D',
  '-U',
  '-include',
  '-imacros',
  '-isystem',
  '-iquote',
  '-idirafter',
  '-iprefix',
  '-isysroot',
  '-x',
  '-MF',
  '-MT',
  '-MQ',
  '-Xlinker',
  '-Xpreprocessor',
  '-Xclang',
  '-Xassembler',
  '-L',
  '-l',
  '-target',
  '--sysroot',
]);
/** What a `-E` of stdin must not get: outputs, the language, dependency files, link-only flags. */
const NOT_FOR_PREPROCESSING = new Set(['-o', '-x', '-MF', '-MT', '-MQ', '-Xlinker', '-Xassembler', '-L', '-l']);
const STANDALONE_DROPPED = /^(?:-c|-S|-E|-M|-MM|-MD|-MMD|-MP|-MG|-shared|-static|-pie|-rdynamic|-Wl,.*|-l.+|-L.+)$/;

/** One compiler call of the build, with paths as they are in the user's project. */
export interface RecordedCompile {
  /** The compiler name the build called (found on PATH). */
  compiler: string;
  cwd: string;
  args: string[];
  /** Its operands (sources, objects), relative to the project root. */
  operands: string[];
  /** The variables of RECORDED_ENV it ran with (PATH without the wrappers), as set. */
  env: Record<string, string>;
}

export type RecordedCompiles = { ok: true; compiles: RecordedCompile[] } | { ok: false; reason: string };

export interface CompilerRecorder {
  /** PATH for the recorded build. */
  env: Record<string, string>;
  names: string[];
  /** The wrappers' folder, which holds a `compiles.<pid>.<n>.log` per compiler call. */
  dir: string;
}

/** Writes the wrappers into `dir` for every compiler name found on `searchPath`. */
export async function makeCompilerRecorder(
  dir: string,
  o: { searchPath: string; settings: Record<string, string | undefined> },
): Promise<CompilerRecorder> {
  await mkdir(dir, { recursive: true });
  const wanted = new Set(COMMON_COMPILERS);
  for (const key of ['CC', 'CXX']) {
    const first = o.settings[key]?.trim().split(/\s+/)[0];
    if (first && !first.includes('/')) wanted.add(first);
  }
  const folders = o.searchPath.split(delimiter).filter((folder) => folder !== '');
  // A wrapper for a compiler this machine lacks would change what `command -v clang` says.
  const present = await executablesOnPath(folders.filter(isAbsolute).join(delimiter), (name) => wanted.has(name));
  const names: string[] = [];
  for (const name of wanted) {
    if (!present.has(name)) continue;
    const script = [
      '#!/bin/sh',
      `recorder=${quote(dir)}`,
      'kept=',
      'set -f',
      'IFS=:',
      'for folder in $PATH; do [ "$folder" = "$recorder" ] || kept=${kept:+$kept:}$folder; done',
      'unset IFS',
      'PATH=$kept',
      'export PATH',
      // The variables that change what a compiler does, each as NAME=value when it is set.
      'set_vars=',
      'for var in ' +
        RECORDED_ENV.join(' ') +
        '; do eval "[ -n \\"\\${$var+x}\\" ]" && set_vars="$set_vars $var"; done',
      '{',
      `  printf '%s\\0' ${quote(name)} "$PWD" "$#" "$@"`,
      '  count=0; for var in $set_vars; do count=$((count + 1)); done',
      `  printf '%s\\0' "$count"`,
      '  for var in $set_vars; do eval "printf \'%s\\\\0\' \\"$var=\\$$var\\""; done',
      '} > "$recorder/.call.$$"',
      // A process id the system reuses during a long build gets the next free number.
      'n=0; while [ -e "$recorder/compiles.$$.$n.log" ]; do n=$((n + 1)); done',
      'mv "$recorder/.call.$$" "$recorder/compiles.$$.$n.log"',
      `exec ${quote(name)} "$@"`,
      '',
    ].join('\n');
    await writeFile(join(dir, name), script);
    await chmod(join(dir, name), 0o755);
    names.push(name);
  }
  return { env: { PATH: [dir, ...folders].join(delimiter) }, names, dir };
}

/**
 * The logged calls, their paths moved from the workspace they ran in (any of its spellings) to the
 * user's project.
 */
export async function readRecordedCompiles(
  recorder: CompilerRecorder,
  o: { workspaceRoots: string[]; projectRoot: string },
): Promise<RecordedCompiles> {
  return recordedOf(recorder, await new CompileLog(recorder, o).readNew());
}

/** All the calls the build made, or why there are none. */
export function recordedOf(recorder: CompilerRecorder, compiles: RecordedCompile[]): RecordedCompiles {
  if (compiles.length > 0) return { ok: true, compiles };
  const names = recorder.names.join(', ') || 'none found on PATH';
  return { ok: false, reason: `the reference build called none of the compilers recorded (${names})` };
}

/** The recorder's calls read while the build runs: each read returns those logged since the last. */
export class CompileLog {
  private readonly seen = new Set<string>();
  private readonly toProject: (text: string) => string;

  constructor(
    private readonly recorder: CompilerRecorder,
    private readonly o: { workspaceRoots: string[]; projectRoot: string },
  ) {
    // The longest spelling first: a root that contains another (/private/var/… and /var/…) moves whole.
    const roots = [...o.workspaceRoots].sort((a, b) => b.length - a.length);
    this.toProject = (text) => roots.reduce((moved, root) => moved.replaceAll(root, o.projectRoot), text);
  }

  async readNew(): Promise<RecordedCompile[]> {
    const logs = (await readdir(this.recorder.dir))
      .filter((name) => /^compiles\.\d+\.\d+\.log$/.test(name) && !this.seen.has(name))
      .sort();
    const compiles: RecordedCompile[] = [];
    for (const log of logs) {
      this.seen.add(log);
      const text = await readFile(join(this.recorder.dir, log), 'utf8');
      compiles.push(...parseLog(text, { toProject: this.toProject, projectRoot: this.o.projectRoot }));
    }
    return compiles;
  }
}

function parseLog(text: string, o: { toProject: (text: string) => string; projectRoot: string }): RecordedCompile[] {
  const fields = text.split('\0');
  const compiles: RecordedCompile[] = [];
  for (let at = 0; at + 2 < fields.length;) {
    const compiler = fields[at] as string;
    const ranIn = fields[at + 1] as string;
    const count = Number(fields[at + 2]);
    const args = fields.slice(at + 3, at + 3 + count).map(o.toProject);
    at += 3 + count;
    const envCount = Number(fields[at]);
    const env: Record<string, string> = {};
    for (const entry of fields.slice(at + 1, at + 1 + envCount)) {
      const equals = entry.indexOf('=');
      env[entry.slice(0, equals)] = o.toProject(entry.slice(equals + 1));
    }
    at += 1 + envCount;
    const cwd = o.toProject(ranIn);
    compiles.push({
      compiler,
      cwd,
      args,
      env,
      operands: operandsOf(args)
        .map((operand) => relative(o.projectRoot, resolve(cwd, operand)))
        .filter((rel) => !leavesRoot(rel)),
    });
  }
  return compiles;
}

/** The build's call that compiled `relPath` (relative to the project root), if it was recorded. */
export function compileOf(compiles: readonly RecordedCompile[], relPath: string): RecordedCompile | undefined {
  return compiles.find((compile) => compile.operands.includes(relPath));
}

/** The call's flags that shape what the preprocessor makes: defines, include folders, standard, … */
export function preprocessingFlags(args: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (SEPARATE_VALUE.has(arg)) {
      if (!NOT_FOR_PREPROCESSING.has(arg)) kept.push(arg, args[i + 1] as string);
      i++;
    } else if (
      arg.startsWith('-') &&
      !STANDALONE_DROPPED.test(arg) &&
      !/^-x./.test(arg) &&
      !/^-o./.test(arg) &&
      !/^-M[FTQ]./.test(arg)
    ) {
      kept.push(arg);
    }
  }
  return kept;
}

function operandsOf(args: readonly string[]): string[] {
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (SEPARATE_VALUE.has(arg)) i++;
    else if (!arg.startsWith('-')) operands.push(arg);
  }
  return operands;
}

function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
