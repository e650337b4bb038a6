// The patch engine's per-hunk reports in the transcript's form (verdict.json `apply_report`), so
// a reviewer sees where each hunk of an answer landed, or why it did not.
import type { FileApplyReport, HunkReport } from '../patch/index.js';
import type { ApplyReport } from '../formats/verdict.js';

export function toApplyReport(basis: 'unpatched' | 'on-top' | null, reports: readonly FileApplyReport[]): ApplyReport {
  return {
    basis,
    files: reports.map((report) => ({
      file: report.fileId ?? report.path ?? '?',
      applied: report.ok,
      hunks: report.hunks.map(hunkEntry),
    })),
  };
}

function hunkEntry(hunk: HunkReport): ApplyReport['files'][number]['hunks'][number] {
  const applied = hunk.status === 'exact' || hunk.status === 'offset' || hunk.status === 'fuzzy';
  const offset =
    applied && hunk.bestLine !== null && hunk.declaredLine !== null ? hunk.bestLine - hunk.declaredLine : null;
  return {
    hunk: hunk.index,
    applied,
    line: hunk.bestLine,
    offset,
    fuzz: hunk.status === 'fuzzy' ? (hunk.score?.mismatch ?? null) : applied ? 0 : null,
    reason: applied ? null : hunk.detail,
  };
}
