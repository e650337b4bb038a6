// Repairs the directives the generated patch added to one file: ties each compiler error to
// its directive, runs the rules over every added directive, and rewrites only those lines.
import { parseDirective, renderDirective } from '../patch/openmp.js';
import { findAddedDirectives, type AddedDirective } from './added-directives.js';
import type { CompilerMessage } from './compiler-messages.js';
import { collapseDepth } from './rules/collapse-depth.js';
import { constObjects } from './rules/const-objects.js';
import { cxxObjects } from './rules/cxx-objects.js';
import { dependSpelling } from './rules/depend-spelling.js';
import { directivePlacement } from './rules/directive-placement.js';
import { duplicateDataSharing } from './rules/duplicate-data-sharing.js';
import { incompleteTypes } from './rules/incomplete-types.js';
import { iterationVariable } from './rules/iteration-variable.js';
import { outOfScopeNames, undeclaredName } from './rules/out-of-scope-names.js';
import { restructuringReason } from './rules/restructuring.js';
import type { DirectiveState, Rule, RuleInput } from './rules/rule.js';
import { sharedOnWorksharing } from './rules/shared-on-worksharing.js';
import { thisInClause } from './rules/this-in-clause.js';
import { analyzeSite, type DirectiveSite } from './scope.js';
import { parseSource } from './syntax.js';

/** Clause spelling first, then names, then which clause holds a name, then position. */
export const RULES: readonly Rule[] = [
  dependSpelling, thisInClause, outOfScopeNames, duplicateDataSharing, iterationVariable, constObjects, cxxObjects,
  incompleteTypes, sharedOnWorksharing, collapseDepth, directivePlacement,
];

export type FileRepair =
  | { kind: 'repaired'; source: string; rules: string[] }
  | { kind: 'unchanged' }
  | { kind: 'declined'; reason: string };

interface Located {
  added: AddedDirective;
  site: DirectiveSite;
  /** Last row of the statement the directive governs; errors up to it belong to the directive. */
  lastRow: number;
  errors: CompilerMessage[];
}

export async function repairFile(o: { generatedPatch: string; patched: string; errors: CompilerMessage[] }): Promise<FileRepair> {
  const found = findAddedDirectives(o.generatedPatch, o.patched);
  if (!found.ok) return { kind: 'declined', reason: found.reason };
  if (found.directives.length === 0) {
    return o.errors.length > 0
      ? { kind: 'declined', reason: `line ${o.errors[0]!.line}: ${o.errors[0]!.text} (the generated patch added no OpenMP directive to this file)` }
      : { kind: 'unchanged' };
  }
  const tree = await parseSource(o.patched);
  const located: Located[] = found.directives.map((added) => {
    const site = analyzeSite(tree, added.row + added.lineCount);
    const governed = site.lookup.kind === 'loop' ? site.lookup.loop : site.target;
    return { added, site, lastRow: Math.max(governed?.endPosition.row ?? added.row, added.row + added.lineCount - 1), errors: [] };
  });
  const untied = tieErrors(located, o.errors);
  if (untied !== null) return { kind: 'declined', reason: untied };

  const context = { lines: o.patched.split('\n'), addedRows: new Set(found.directives.map((added) => added.row)), allErrors: o.errors };
  const usedRules: string[] = [];
  const replacements = new Map<number, { state: DirectiveState; lineCount: number }>();
  for (const entry of located) {
    const outcome = repairDirective(entry, context);
    if (outcome.kind === 'declined') return outcome;
    for (const rule of outcome.rules) if (!usedRules.includes(rule)) usedRules.push(rule);
    if (outcome.rules.length > 0) replacements.set(entry.added.row, { state: outcome.state, lineCount: entry.added.lineCount });
  }
  if (replacements.size === 0) return { kind: 'unchanged' };
  return { kind: 'repaired', source: rewrite(context.lines, replacements), rules: usedRules };
}

/**
 * Gives each error to the innermost added directive whose line or governed statement holds it.
 * Returns a decline reason for an error no directive explains or one that needs restructuring.
 */
function tieErrors(located: Located[], errors: readonly CompilerMessage[]): string | null {
  for (const error of errors) {
    const row = error.line - 1;
    const owner = located.filter((entry) => entry.added.row <= row && row <= entry.lastRow).at(-1);
    if (!owner) return `line ${error.line}: ${error.text} (not at a directive the generated patch added)`;
    const restructuring = restructuringReason(error.text);
    if (restructuring) return `line ${error.line}: ${restructuring} (${error.text})`;
    owner.errors.push(error);
  }
  return null;
}

type DirectiveRepair = { kind: 'done'; state: DirectiveState; rules: string[] } | { kind: 'declined'; reason: string };

/** Runs every rule over one directive; all of its errors must end up resolved. */
function repairDirective(
  entry: Located,
  context: { lines: readonly string[]; addedRows: ReadonlySet<number>; allErrors: readonly CompilerMessage[] },
): DirectiveRepair {
  const directive = parseDirective(entry.added.text);
  if (!directive) return { kind: 'declined', reason: `line ${entry.added.row + 1}: cannot read the directive '${entry.added.text.trim()}'` };
  const undeclaredInFunction = undeclaredNamesIn(context.allErrors, entry.site.functionRows);
  let state: DirectiveState = { directive, aboveRow: entry.added.row + entry.added.lineCount };
  const rules: string[] = [];
  const resolved = new Set<CompilerMessage>();
  for (const rule of RULES) {
    const input: RuleInput = {
      state, row: entry.added.row, lineCount: entry.added.lineCount, site: entry.site, errors: entry.errors,
      undeclaredInFunction, lines: context.lines, addedRows: context.addedRows,
    };
    const outcome = rule.apply(input);
    if (outcome.kind === 'declined') return { kind: 'declined', reason: `line ${entry.added.row + 1}: ${outcome.reason}` };
    if (changed(state, outcome.state)) rules.push(rule.name);
    state = outcome.state;
    for (const message of outcome.resolved) resolved.add(message);
  }
  const unresolved = entry.errors.find((error) => !resolved.has(error));
  if (unresolved) return { kind: 'declined', reason: `line ${unresolved.line}: no built-in rule repairs '${unresolved.text}'` };
  return { kind: 'done', state, rules };
}

function undeclaredNamesIn(errors: readonly CompilerMessage[], rows: DirectiveSite['functionRows']): Set<string> {
  return new Set(errors.flatMap((error) => {
    const name = undeclaredName(error.text);
    const inFunction = rows !== null && error.line - 1 >= rows.first && error.line - 1 <= rows.last;
    return name !== null && inFunction ? [name] : [];
  }));
}

function changed(before: DirectiveState, after: DirectiveState): boolean {
  return before.aboveRow !== after.aboveRow || renderDirective(before.directive) !== renderDirective(after.directive);
}

/** Drops the replaced directives' own lines and writes each new directive above its row. */
function rewrite(lines: readonly string[], replacements: Map<number, { state: DirectiveState; lineCount: number }>): string {
  const skipped = new Set<number>();
  const insertBefore = new Map<number, string[]>();
  for (const [row, { state, lineCount }] of replacements) {
    for (let offset = 0; offset < lineCount; offset++) skipped.add(row + offset);
    insertBefore.set(state.aboveRow, [...(insertBefore.get(state.aboveRow) ?? []), renderDirective(state.directive)]);
  }
  const output: string[] = [];
  lines.forEach((line, row) => {
    output.push(...(insertBefore.get(row) ?? []));
    if (!skipped.has(row)) output.push(line);
  });
  return output.join('\n');
}
