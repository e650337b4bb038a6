// How `show` and the review page say what check 7's validate.sh did (results.json run_check.validate).
import type { RunCheck } from '../formats/results.js';

export function validateText(runs: RunCheck): string | null {
  const v = runs.validate;
  if (!v) return null;
  const built = v.built_by === 'compile_validate.sh' ? ", each against compile_validate.sh's build" : '';
  return `validate.sh ${v.passed ? 'passed' : 'failed'} (${v.runs} run${v.runs === 1 ? '' : 's'}${built}, ${v.seconds.toFixed(1)} s)`;
}
