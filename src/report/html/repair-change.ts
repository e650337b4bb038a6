// What a verified repair changed, as a reviewer wants to read it: one line (the built-in rule, the
// clause changes, how many lines of code it edited beside the directive) and the diff between the
// source as the generated patch leaves it and the source as the repaired patch leaves it. Both
// patches were made against the same original source, so each is applied to it here; nothing is
// rebuilt or re-verified.
import { createTwoFilesPatch, structuredPatch } from 'diff';
import { applyFilePatch, isOmpPragma, parsePatches } from '../../patch/index.js';
import type { SuggestionRecord } from '../../formats/results.js';
import { describeChange } from '../summary.js';

export interface RepairChange {
  /** One line: the rule or the clause changes, then the code edits outside the directives. */
  summary: string;
  /** Unified diff of generated → repaired source, one block per changed file; empty when none could be made. */
  diff: string;
  /** Why the source diff of a file could not be made or may mislead (the source changed since the run). */
  notes: string[];
}

export interface ChangedFile {
  fileId: string;
  /** Project-relative path, for the diff's header. */
  relPath: string;
  /** The source as it is on disk now; null when it cannot be read. */
  source: string | null;
  generated: string | null;
  repaired: string;
}

export function repairChange(
  record: Pick<SuggestionRecord, 'builtin_rule' | 'clause_changes'>,
  files: readonly ChangedFile[],
): RepairChange {
  const notes: string[] = [];
  const diffs: string[] = [];
  let codeLines = 0;
  for (const file of files) {
    const sides = sourceSides(file);
    if (typeof sides === 'string') {
      notes.push(`${file.relPath}: ${sides}`);
      continue;
    }
    if (sides.note) notes.push(`${file.relPath}: ${sides.note}`);
    codeLines += codeLinesChanged(sides.before, sides.after);
    diffs.push(
      createTwoFilesPatch(`a/${file.relPath}`, `b/${file.relPath}`, sides.before, sides.after, undefined, undefined, {
        context: 3,
      }),
    );
  }
  const parts = record.clause_changes.map(describeChange);
  if (codeLines > 0) parts.push(`code edits outside the directive: ${codeLines} ${codeLines === 1 ? 'line' : 'lines'}`);
  if (parts.length === 0) parts.push(diffs.length > 0 ? 'directive reformatted' : 'patch rewritten');
  const rule = record.builtin_rule === null ? '' : `built-in rule ${record.builtin_rule}: `;
  return { summary: `${rule}${parts.join('; ')}`, diff: diffs.join('\n'), notes };
}

/** The file as each patch leaves it, or why that cannot be shown. */
function sourceSides(file: ChangedFile): { before: string; after: string; note: string | null } | string {
  if (file.source === null) return 'the source file cannot be read, so the change is shown as patches only';
  const after = applied(file.source, file.repaired);
  if (after === null) return 'the repaired patch does not apply to the source as it is now (changed since the run?)';
  // The run repaired a generated patch that did not apply against the unpatched source, as here.
  const before = file.generated === null ? null : applied(file.source, file.generated);
  const note = before === null ? 'the generated patch does not apply: compared with the unpatched source' : null;
  return { before: before ?? file.source, after, note };
}

function applied(source: string, patch: string): string | null {
  const [filePatch] = parsePatches(patch).patches;
  if (!filePatch) return null;
  const report = applyFilePatch(source, filePatch);
  return report.ok ? report.result : null;
}

/**
 * Lines of code the repair edited besides OpenMP directives. Directive lines are left out before
 * comparing, so a directive moved across a declaration is not an edit of that declaration; a run
 * of removed and added lines counts as its longer side, so a rewritten line is one edit, not two.
 */
function codeLinesChanged(before: string, after: string): number {
  const code = (text: string) =>
    `${text
      .split('\n')
      .filter((line) => !isOmpPragma(line))
      .join('\n')}\n`;
  let total = 0;
  for (const hunk of structuredPatch('a', 'b', code(before), code(after), undefined, undefined, { context: 0 }).hunks) {
    const count = (sign: string) => hunk.lines.filter((line) => line.startsWith(sign)).length;
    total += Math.max(count('-'), count('+'));
  }
  return total;
}
