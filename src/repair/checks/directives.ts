// Check 5: every OpenMP directive the generated patch added is still added, as the same construct
// directly above the same target statement (design.md, "Directive identity"). Clauses may change;
// deleting, commenting out or moving a directive to silence the compiler is rejected. Records what
// changed in the clauses and whether any line other than a directive changed.
import { checkDirectivesKept } from '../../patch/index.js';
import type { ClauseChange } from '../../store/results.js';
import type { RepairTask } from '../task.js';
import { pass, reject, type CheckOutcome } from './result.js';

export interface DirectivesKept {
  clauseChanges: ClauseChange[];
  nonDirectiveLinesChanged: boolean;
}

export function directivesKept(task: RepairTask, results: ReadonlyMap<string, string>): CheckOutcome<DirectivesKept> {
  const clauseChanges: ClauseChange[] = [];
  let nonDirectiveLinesChanged = false;
  for (const file of task.suggestion.files) {
    const original = task.sources.get(file.fileId);
    const generated = task.patched.get(file.fileId);
    const candidate = results.get(file.fileId);
    if (original === undefined || generated === undefined || candidate === undefined) continue;
    const kept = checkDirectivesKept({ original, generated, candidate });
    if (!kept.ok) return reject(`${file.source.relPath}: ${kept.reason}`);
    clauseChanges.push(...kept.changes.map((change) => ({ ...change, file: file.fileId })));
    nonDirectiveLinesChanged ||= kept.nonDirectiveLinesChanged;
  }
  return pass({ clauseChanges, nonDirectiveLinesChanged });
}
