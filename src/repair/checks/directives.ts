// Check 5: every OpenMP directive the generated patch added is still added, as the same construct
// directly above the same target statement (design.md, "Directive identity"). Clauses may change;
// deleting, commenting out, moving or switching off (`if(0)`, `num_threads(1)`) a directive to
// silence the compiler is rejected. Records what changed in the clauses and whether any line other
// than a directive changed.
import {
  checkDirectivesKept,
  directivesAddedByPatch,
  directivesAddedTo,
  parsePatches,
  switchedOffByClause,
} from '../../patch/index.js';
import type { DirectivesKept } from '../../formats/attempt.js';
import type { ClauseChange } from '../../formats/results.js';
import type { RepairTask } from '../../formats/task.js';
import { pass, reject, type CheckOutcome } from './result.js';

export function directivesKept(task: RepairTask, results: ReadonlyMap<string, string>): CheckOutcome<DirectivesKept> {
  const clauseChanges: ClauseChange[] = [];
  let nonDirectiveLinesChanged = false;
  for (const file of task.suggestion.files) {
    const original = task.sources.get(file.fileId);
    const generated = task.patched.get(file.fileId);
    const candidate = results.get(file.fileId);
    if (original === undefined || generated === undefined || candidate === undefined) continue;
    if (generated === original) {
      const missing = missingConstructs(task.generated.get(file.fileId) ?? file.text, original, candidate);
      if (missing !== null) return reject(`${file.source.relPath}: ${missing}`);
      continue;
    }
    const kept = checkDirectivesKept({ original, generated, candidate });
    if (!kept.ok) return reject(`${file.source.relPath}: ${kept.reason}`);
    clauseChanges.push(...kept.changes.map((change) => ({ ...change, file: file.fileId })));
    nonDirectiveLinesChanged ||= kept.nonDirectiveLinesChanged;
  }
  return pass({ clauseChanges, nonDirectiveLinesChanged });
}

/**
 * When the generated patch does not apply to the source (the reason it failed to build), there is
 * no position to compare with; every directive it adds must at least still be added, as the same
 * construct, so a candidate can never pass by dropping one.
 */
function missingConstructs(generatedPatch: string, original: string, candidate: string): string | null {
  const [patch] = parsePatches(generatedPatch).patches;
  const offered = directivesAddedTo(original, candidate);
  for (const wanted of patch ? directivesAddedByPatch(patch) : []) {
    const at = offered.findIndex((directive) => directive.construct === wanted.construct);
    if (at < 0)
      return `the generated \`#pragma omp ${wanted.construct}\` directive is not added any more; it must stay (only its clauses may change)`;
    const off = switchedOffByClause(offered[at]!, wanted);
    if (off !== null) return `the \`#pragma omp ${wanted.construct}\` directive ${off}`;
    offered.splice(at, 1);
  }
  return null;
}
