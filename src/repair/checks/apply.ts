// Check 3: the candidate's resulting code for the whole set. Files the answer does not touch keep
// the generated result. A candidate whose code is exactly the generated code is rejected before a
// build is spent on it: that code is the one that fails.
import type { RepairTask } from '../../formats/task.js';
import { pass, reject, type CheckOutcome } from './result.js';

export interface Applied {
  /** file id → resulting code for every file of the set. */
  results: Map<string, string>;
  /** File ids whose resulting code differs from the generated result. */
  changed: string[];
}

export function resultingCode(task: RepairTask, contents: ReadonlyMap<string, string>): CheckOutcome<Applied> {
  const results = new Map<string, string>();
  const changed: string[] = [];
  for (const file of task.suggestion.files) {
    const generatedResult = task.patched.get(file.fileId);
    const result = contents.get(file.fileId) ?? generatedResult;
    if (result === undefined)
      return reject(`${file.source.relPath}: no code to check (the generated patch did not apply to it)`);
    if (result.includes('\u0000'))
      return reject(
        `${file.source.relPath}: the patched file would contain NUL bytes; the result must be source text.`,
      );
    results.set(file.fileId, result);
    if (result !== generatedResult) changed.push(file.fileId);
  }
  if (changed.length === 0) {
    // A build the compiler passed fails only by the static collapse check: say that, not "does not build".
    if (task.build.failedAt === 'static-check')
      return reject(
        `The answer leaves the code exactly as the generated patch set does, which builds but fails patch-repair's static check: ${task.build.firstError ?? ''}`,
      );
    return reject(
      'The answer leaves the code exactly as the generated patch set does, and that code does not build. Change the directives (or the code) so that it compiles.',
    );
  }
  return pass({ results, changed });
}
