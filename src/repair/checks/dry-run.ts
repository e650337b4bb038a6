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

export function dryRunApply(o: { task: RepairTask; candidate: Map<string, FilePatch>; generated: Map<string, FilePatch> }): {
  outcome: CheckOutcome<DryRun>;
  applyReport: ApplyReport;
} {
  const applied = applyPatchSet({ sources: o.task.sources, candidate: o.candidate, generated: o.generated });
  if (!applied.ok) return { outcome: reject(applied.text), applyReport: toApplyReport(null, applied.reports) };
  return { outcome: pass({ basis: applied.basis, contents: applied.contents }), applyReport: toApplyReport(applied.basis, applied.reports) };
}
