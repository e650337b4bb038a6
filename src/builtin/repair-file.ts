// Repairs the directives the generated patch added to one file: ties each compiler error to
// its directive, runs the rules over every added directive, and rewrites those lines (and the
// code a rule rewrites around them: a local copy, a loop test, a declare reduction).
import { parseDirective, renderDirective } from '../patch/openmp.js';
import { findAddedDirectives, type AddedDirective } from './added-directives.js';
import type { FileDiagnostic } from './rules/rule.js';
import { arrayElementReduction } from './rules/array-element-reduction.js';
import { namedElements } from './rules/named-elements.js';
import { aggregateReduction } from './rules/aggregate-reduction.js';
import { moveUnitLines } from './unit-moves.js';
import { canonicalLoopTest } from './rules/canonical-loop-test.js';
import { classReduction } from './rules/class-reduction.js';
import { collapseDepth } from './rules/collapse-depth.js';
import { constObjects } from './rules/const-objects.js';
import { cxxObjects } from './rules/cxx-objects.js';
import { dependSpelling } from './rules/depend-spelling.js';
import { directivePlacement } from './rules/directive-placement.js';
import { duplicateDataSharing } from './rules/duplicate-data-sharing.js';
import { incompleteTypes } from './rules/incomplete-types.js';
import { iterationVariable } from './rules/iteration-variable.js';
import { memberReduction } from './rules/member-reduction.js';
import { outOfScopeNames, undeclaredName } from './rules/out-of-scope-names.js';
import { restructuringReason } from './rules/restructuring.js';
import { moveTaskRegionBraces, TASK_REGION_BRACE } from './rules/task-region-brace.js';
import { predeterminedShared } from './rules/predetermined-shared.js';
import { reductionEntry } from './rules/reduction-entry.js';
import { scalarSection } from './rules/scalar-section.js';
import { NO_EDITS, type DirectiveState, type Rule, type RuleInput, type SourceEdits } from './rules/rule.js';
import { sharedOnWorksharing } from './rules/shared-on-worksharing.js';
import { structReduction } from './rules/struct-reduction.js';
import { thisInClause } from './rules/this-in-clause.js';
import { analyzeSite, type DirectiveSite } from './scope.js';
import { parseSource } from './syntax.js';
import { parseTranslationUnit, type TranslationUnit, type TypeScope } from './translation-unit.js';

/**
 * Clause spelling first, then names, then which clause holds a name, then position; the rules
 * that rewrite code last, so they see the directive where it finally stands. Member and element
 * reductions go before the name rules, which would otherwise drop `a.sum` as a broken entry.
 */
export const RULES: readonly Rule[] = [
  dependSpelling,
  reductionEntry,
  scalarSection,
  memberReduction,
  structReduction,
  arrayElementReduction,
  namedElements,
  thisInClause,
  outOfScopeNames,
  duplicateDataSharing,
  iterationVariable,
  predeterminedShared,
  constObjects,
  cxxObjects,
  incompleteTypes,
  sharedOnWorksharing,
  collapseDepth,
  directivePlacement,
  aggregateReduction,
  classReduction,
  canonicalLoopTest,
];

export type FileRepair =
  { kind: 'repaired'; source: string; rules: string[] } | { kind: 'unchanged' } | { kind: 'declined'; reason: string };

interface Located {
  added: AddedDirective;
  site: DirectiveSite;
  /** Last row of the statement the directive governs; errors up to it belong to the directive. */
  lastRow: number;
  errors: FileDiagnostic[];
}

export interface FileRepairInput {
  generatedPatch: string;
  patched: string;
  errors: FileDiagnostic[];
  isCxx: boolean;
  /** The patched file preprocessed with the build's compiler and flags (`-E`, line markers); absent when that could not be run. */
  translationUnit?: string;
}

export async function repairFile(input: FileRepairInput): Promise<FileRepair> {
  // The rules read LF lines; a CRLF file (or one with some CRLF lines) gets each line's CR back
  // in rewrite(), so every line it does not touch keeps its bytes.
  const carriageReturns = input.patched.split('\n').map((line) => line.endsWith('\r'));
  const o = {
    ...input,
    generatedPatch: input.generatedPatch.replace(/\r\n/g, '\n'),
    patched: input.patched.replace(/\r\n/g, '\n'),
  };
  const found = findAddedDirectives(o.generatedPatch, o.patched);
  if (!found.ok) return { kind: 'declined', reason: found.reason };
  if (found.directives.length === 0) {
    return o.errors.length > 0
      ? {
          kind: 'declined',
          reason: `line ${o.errors[0]!.line}: ${o.errors[0]!.message} (the generated patch added no OpenMP directive to this file)`,
        }
      : { kind: 'unchanged' };
  }
  const tree = await parseSource(o.patched);
  const braces = moveTaskRegionBraces({
    generatedPatch: o.generatedPatch,
    lines: o.patched.split('\n'),
    carriageReturns,
    tree,
    added: found.directives,
    errors: o.errors,
  });
  if (braces.kind === 'declined') return braces;
  if (braces.kind === 'moved') {
    const moved = braces.lines.map((line, row) => line + (braces.carriageReturns[row] ? '\r' : '')).join('\n');
    // The unit was made from the file before the move: it moves the same way, or is left out
    // (a stretch it cannot follow row for row) rather than read one line off.
    const { translationUnit: before, ...withoutUnit } = input;
    const unitMoved = before === undefined ? null : moveUnitLines(before, braces.moves);
    const rest = await repairFile({
      ...withoutUnit,
      patched: moved,
      errors: braces.errors,
      ...(unitMoved !== null && { translationUnit: unitMoved }),
    });
    if (rest.kind === 'declined') return rest;
    return rest.kind === 'unchanged'
      ? { kind: 'repaired', source: moved, rules: [TASK_REGION_BRACE] }
      : { ...rest, rules: [TASK_REGION_BRACE, ...rest.rules] };
  }
  const unit = input.translationUnit === undefined ? null : await parseTranslationUnit(input.translationUnit);
  const located: Located[] = found.directives.map((added) => {
    const site = withTranslationUnit(analyzeSite(tree, added.row + added.lineCount), unit, added.row + added.lineCount);
    const governed = site.lookup.kind === 'loop' ? site.lookup.loop : site.target;
    return {
      added,
      site,
      lastRow: Math.max(governed?.endPosition.row ?? added.row, added.row + added.lineCount - 1),
      errors: [],
    };
  });
  const untied = tieErrors(located, o.errors);
  if (untied !== null) return { kind: 'declined', reason: untied };

  const context: Context = {
    lines: o.patched.split('\n'),
    addedRows: new Set(found.directives.map((added) => added.row)),
    allErrors: o.errors,
    root: tree.rootNode,
    isCxx: o.isCxx,
    types: unit
      ? { root: unit.tree.rootNode, lines: unit.lines }
      : { root: tree.rootNode, lines: o.patched.split('\n') },
    ...(unit && { expanded: (row: number) => unit.textOf(row + 1) }),
  };
  const usedRules: string[] = [];
  const replacements = new Map<number, { state: DirectiveState; lineCount: number }>();
  let edits: SourceEdits = NO_EDITS;
  for (const entry of located) {
    const outcome = repairDirective(entry, context);
    const needsLoopEdit =
      outcome.kind === 'declined'
        ? !RULES_READING_THE_EXPANSION.has(outcome.rule ?? '')
        : outcome.rules.some((rule) => RULES_EDITING_THE_LOOP.has(rule));
    const inMacro = unit && needsLoopEdit ? fixInsideMacroExpansion(entry, unit, context.lines) : null;
    if (inMacro !== null) return { kind: 'declined', reason: inMacro };
    if (outcome.kind === 'declined') return { kind: 'declined', reason: outcome.reason };
    for (const rule of outcome.rules) if (!usedRules.includes(rule)) usedRules.push(rule);
    if (outcome.rules.length > 0)
      replacements.set(entry.added.row, { state: outcome.state, lineCount: entry.added.lineCount });
    edits = mergeEdits(edits, outcome.state.edits);
  }
  if (replacements.size === 0) return { kind: 'unchanged' };
  return { kind: 'repaired', source: rewrite(context.lines, replacements, edits, carriageReturns), rules: usedRules };
}

/**
 * Rules that judge the loop as the compiler sees it, macros expanded, and edit nothing in it: their
 * own reason for declining says more than that a macro writes the uses.
 */
const RULES_READING_THE_EXPANSION = new Set(['declare-member-wise-reduction']);

/** Rules that rewrite the loop's header or the reduced variable's uses in it. */
const RULES_EDITING_THE_LOOP = new Set([
  'reduce-member-copy',
  'reduce-struct-members',
  'reduce-array-element',
  'reduce-named-elements',
  'canonical-loop-test',
]);

/**
 * Edits go to the file's lines only; when the loop itself, or a use of a reduced variable in it,
 * is written by a macro (`#define FOR_PAIRS(i, n) for (…)`, `#define ADD_ROW(i) (sums[i] += …)`),
 * the place to fix exists only in the expansion, and editing the macro would change every use
 * of it. Seen by comparing each line of the loop with the same line in the translation unit.
 */
function fixInsideMacroExpansion(entry: Located, unit: TranslationUnit, lines: readonly string[]): string | null {
  const firstRow = entry.added.row + entry.added.lineCount;
  const macroOn = (row: number) => {
    const expanded = unit.textOf(row + 1);
    const name = [...(lines[row] ?? '').matchAll(/[A-Za-z_]\w*/g)]
      .map((match) => match[0])
      .find((word) => !new RegExp(`\\b${word}\\b`).test(expanded));
    return name ?? 'a macro';
  };
  const isFor = /\bfor\s*\(/;
  if (!isFor.test(lines[firstRow] ?? '') && isFor.test(unit.textOf(firstRow + 1))) {
    return `line ${firstRow + 1}: the loop is written by the macro '${macroOn(firstRow)}', so a fix would have to edit the macro's expansion, which only the preprocessed code holds`;
  }
  const reduced = new Set(
    (parseDirective(entry.added.text)?.clauses ?? [])
      .filter((clause) => clause.name === 'reduction')
      .flatMap((clause) => (clause.vars ?? []).map((entryText) => /^[A-Za-z_]\w*/.exec(entryText.trim())?.[0] ?? ''))
      .filter((name) => name !== ''),
  );
  for (let row = firstRow; row <= entry.lastRow; row++) {
    for (const name of reduced) {
      const uses = (text: string) => text.match(new RegExp(`\\b${name}\\b`, 'g'))?.length ?? 0;
      if (uses(unit.textOf(row + 1)) > uses(lines[row] ?? '')) {
        return `line ${row + 1}: '${name}' is used in the loop through the macro '${macroOn(row)}', so a fix would have to edit the macro's expansion, which only the preprocessed code holds`;
      }
    }
  }
  return null;
}

/**
 * What the compiler sees at the directive: the names visible at the same place of the
 * translation unit, with their types after macro expansion, replace what the file alone shows
 * (a parameter `DATA_TYPE POLYBENCH_1D(x,N,n)` reads as an array there); the statements, rows and
 * everything an edit touches stay the file's.
 */
function withTranslationUnit(site: DirectiveSite, unit: TranslationUnit | null, afterRow: number): DirectiveSite {
  const row = unit?.rowOf(afterRow + 1);
  if (!unit || row === null || row === undefined) return site;
  const seen = analyzeSite(unit.tree, row);
  if (seen.target === null) return site;
  const visible = new Map(site.visible);
  for (const [name, declaration] of seen.visible) {
    // Extents are written into clauses, so only the file's own spelling of them will do.
    const { extents: _expanded, ...facts } = declaration;
    const inFile = site.visible.get(name)?.extents;
    visible.set(name, inFile === undefined ? facts : { ...facts, extents: inFile });
  }
  // A declaration written by a macro (`DECLARE(acc);`) between the directive and its loop declares
  // its name only in the expanded text.
  const declaredBetween = new Set([...site.declaredBetween, ...seen.declaredBetween]);
  return { ...site, visible, declaredBetween, membersKnown: site.membersKnown || seen.membersKnown };
}

/**
 * Gives each error to the innermost added directive whose line or governed statement holds it.
 * Returns a decline reason for an error no directive explains or one that needs restructuring.
 */
function tieErrors(located: Located[], errors: readonly FileDiagnostic[]): string | null {
  for (const error of errors) {
    const row = error.line - 1;
    const owner =
      located.filter((entry) => entry.added.row <= row && row <= entry.lastRow).at(-1) ??
      labelOwner(located, error) ??
      declarationOwner(located, error) ??
      swallowedDeclarationOwner(located, error) ??
      typoFollowOnOwner(located, error, errors);
    if (!owner) return `line ${error.line}: ${error.message} (not at a directive the generated patch added)`;
    owner.errors.push(error);
  }
  return null;
}

/**
 * clang reports a directive above a label at the `goto`: the label now sits inside the OpenMP
 * region, out of the jump's reach. The error belongs to the directive whose way to its loop
 * passes that label.
 */
function labelOwner(located: Located[], error: FileDiagnostic): Located | undefined {
  const label = /^use of undeclared label '([^']+)'/.exec(error.message)?.[1];
  if (label === undefined) return undefined;
  return located.find(
    (entry) =>
      entry.site.lookup.kind === 'loop' &&
      entry.site.lookup.path.some(
        (node) => node.type === 'labeled_statement' && node.childForFieldName('label')?.text === label,
      ),
  );
}

/**
 * g++ reports an incomplete type at the variable's declaration (`'table' has incomplete type`),
 * far from the clause that privatizes it: the error belongs to the one directive naming it.
 */
function declarationOwner(located: Located[], error: FileDiagnostic): Located | undefined {
  const name = /^'([^']+)' has (?:an? )?incomplete type/.exec(error.message)?.[1];
  if (name === undefined) return undefined;
  const naming = located.filter((entry) =>
    (parseDirective(entry.added.text)?.clauses ?? []).some((clause) => (clause.vars ?? []).includes(name)),
  );
  return naming.length === 1 ? naming[0] : undefined;
}

/**
 * clang parses the declaration a misplaced loop directive stands above as the directive's own
 * statement, so the declared name goes out of scope right after it and every later use in the
 * function is "use of undeclared identifier": a follow-on of that directive, which moving it onto
 * its loop removes.
 */
function swallowedDeclarationOwner(located: Located[], error: FileDiagnostic): Located | undefined {
  const name = undeclaredName(error.message);
  if (name === null) return undefined;
  const row = error.line - 1;
  return located.find(
    (entry) =>
      entry.site.declaredBetween.has(name) &&
      entry.added.row < row &&
      entry.site.functionRows !== null &&
      row <= entry.site.functionRows.last,
  );
}

/**
 * clang goes on with its guess for a name the misplaced directive swallowed ("use of undeclared
 * identifier 'ans'; did you mean 'abs'?"), so the other errors on that line come from the guess's
 * type (`returning 'int (int)' from a function with incompatible result type 'float'`): they
 * belong to the same directive.
 */
function typoFollowOnOwner(
  located: Located[],
  error: FileDiagnostic,
  errors: readonly FileDiagnostic[],
): Located | undefined {
  const corrected = errors.find(
    (other) => other !== error && other.line === error.line && / did you mean '[^']+'\?$/.test(other.message),
  );
  return corrected && swallowedDeclarationOwner(located, corrected);
}

type DirectiveRepair =
  { kind: 'done'; state: DirectiveState; rules: string[] } | { kind: 'declined'; reason: string; rule?: string };

/** Runs every rule over one directive; all of its errors must end up resolved. */
interface Context {
  lines: readonly string[];
  addedRows: ReadonlySet<number>;
  allErrors: readonly FileDiagnostic[];
  root: RuleInput['root'];
  isCxx: boolean;
  types: TypeScope;
  expanded?: (row: number) => string;
}

function repairDirective(entry: Located, context: Context): DirectiveRepair {
  const directive = parseDirective(entry.added.text);
  if (!directive)
    return {
      kind: 'declined',
      reason: `line ${entry.added.row + 1}: cannot read the directive '${entry.added.text.trim()}'`,
    };
  const undeclaredInFunction = undeclaredNamesIn(context.allErrors, entry.site.functionRows);
  let state: DirectiveState = { directive, aboveRow: entry.added.row + entry.added.lineCount, edits: NO_EDITS };
  const rules: string[] = [];
  const resolved = new Set<FileDiagnostic>();
  for (const rule of RULES) {
    const input: RuleInput = {
      state,
      row: entry.added.row,
      lineCount: entry.added.lineCount,
      site: entry.site,
      errors: entry.errors,
      undeclaredInFunction,
      lines: context.lines,
      addedRows: context.addedRows,
      root: context.root,
      isCxx: context.isCxx,
      types: context.types,
      ...(context.expanded && { expanded: context.expanded }),
    };
    const outcome = rule.apply(input);
    if (outcome.kind === 'declined')
      return { kind: 'declined', reason: `line ${entry.added.row + 1}: ${outcome.reason}`, rule: rule.name };
    if (changed(state, outcome.state)) rules.push(rule.name);
    state = outcome.state;
    for (const message of outcome.resolved) resolved.add(message);
  }
  // An error no rule resolved: the reason it needs restructuring when there is one (early exit,
  // a loop no rule could make canonical), else what was left.
  const unresolved = entry.errors.filter((error) => !resolved.has(error));
  const restructuring = unresolved.flatMap((error) => {
    const reason = restructuringReason(error.message);
    return reason ? [`line ${error.line}: ${reason} (${error.message})`] : [];
  });
  if (restructuring.length > 0) return { kind: 'declined', reason: restructuring[0]! };
  if (unresolved.length > 0)
    return {
      kind: 'declined',
      reason: `line ${unresolved[0]!.line}: no built-in rule repairs the error ${unresolved[0]!.message}`,
    };
  return { kind: 'done', state, rules };
}

function undeclaredNamesIn(errors: readonly FileDiagnostic[], rows: DirectiveSite['functionRows']): Set<string> {
  return new Set(
    errors.flatMap((error) => {
      const name = undeclaredName(error.message);
      const inFunction = rows !== null && error.line - 1 >= rows.first && error.line - 1 <= rows.last;
      return name !== null && inFunction ? [name] : [];
    }),
  );
}

function changed(before: DirectiveState, after: DirectiveState): boolean {
  return (
    before.aboveRow !== after.aboveRow ||
    renderDirective(before.directive) !== renderDirective(after.directive) ||
    before.edits !== after.edits
  );
}

/** Two directives' edits together; a line both insert at one place (a declare reduction) is written once. */
function mergeEdits(a: SourceEdits, b: SourceEdits): SourceEdits {
  const lists = (x: ReadonlyMap<number, readonly string[]>, y: ReadonlyMap<number, readonly string[]>) => {
    const merged = new Map(x);
    for (const [row, lines] of y) merged.set(row, [...new Set([...(merged.get(row) ?? []), ...lines])]);
    return merged;
  };
  return {
    replace: new Map([...a.replace, ...b.replace]),
    before: lists(a.before, b.before),
    after: lists(a.after, b.after),
  };
}

/**
 * Drops the replaced directives' own lines, writes each new directive above its row, and applies
 * the rules' code edits: lines a rule puts before a row come before the directive standing there.
 * A line that ended in CR keeps it; a line written before or after a row takes that row's ending.
 */
function rewrite(
  lines: readonly string[],
  replacements: Map<number, { state: DirectiveState; lineCount: number }>,
  edits: SourceEdits,
  carriageReturns: readonly boolean[],
): string {
  const skipped = new Set<number>();
  const insertBefore = new Map<number, string[]>();
  for (const [row, { state, lineCount }] of replacements) {
    for (let offset = 0; offset < lineCount; offset++) skipped.add(row + offset);
    insertBefore.set(state.aboveRow, [...(insertBefore.get(state.aboveRow) ?? []), renderDirective(state.directive)]);
  }
  const output: string[] = [];
  lines.forEach((line, row) => {
    const cr = carriageReturns[row] ? '\r' : '';
    const withCr = (texts: readonly string[]) => texts.map((text) => text + cr);
    output.push(...withCr(edits.before.get(row) ?? []), ...withCr(insertBefore.get(row) ?? []));
    if (!skipped.has(row)) output.push((edits.replace.get(row) ?? line) + cr);
    output.push(...withCr(edits.after.get(row) ?? []));
  });
  return output.join('\n');
}
