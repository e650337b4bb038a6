// Check 2: the whole candidate set applies to the unpatched sources, all files or none; failing
// that, as a change on top of the generated patch. The engine tolerates line drift and explains a
// failure per hunk in words the model can act on; that text is the follow-up turn.
import { applyPatchSet, type FilePatch } from '../../patch/index.js';
import type { ApplyReport } from '../../formats/verdict.js';
import { toApplyReport } from '../apply-report.js';
import type { RepairTask } from '../../formats/task.js';
import { pass, reject, type CheckOutcome } from './result.js';

export interface DryRun {
  basis: 'unpatched' | 'on-top';
  /** file id → the candidate's resulting code, for the files the answer changes. */
  contents: Map<string, string>;
}

/**
 * `hunkContext` is the second reading, where a hunk's context line differs from the file and the
 * hunk's own line is written instead (the model's fix may be there); verification tries it after
 * the diff's own reading.
 */
export function dryRunApply(o: {
  task: RepairTask;
  candidate: Map<string, FilePatch>;
  generated: Map<string, FilePatch>;
}): {
  outcome: CheckOutcome<DryRun>;
  applyReport: ApplyReport;
  hunkContext: DryRun | null;
} {
  const applied = applyPatchSet({ sources: o.task.sources, candidate: o.candidate, generated: o.generated });
  const hunkContext = applied.hunkContext;
  if (!applied.ok)
    return { outcome: reject(applied.text), applyReport: toApplyReport(null, applied.reports), hunkContext };
  return {
    outcome: pass({ basis: applied.basis, contents: applied.contents }),
    applyReport: toApplyReport(applied.basis, applied.reports),
    hunkContext,
  };
}
