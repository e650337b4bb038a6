// --check-run, before any repair: the project without any suggestion is run twice with execute.sh
// (the reference and its noise floor); a reference that cannot be compared with refuses the run.
// With `all`, every suggestion that builds as generated is then run like a candidate, and its
// record says whether it runs the same (its status stays ok).
import { generatedPatchSet, type BuildPool } from '../build/index.js';
import { RefusedError } from '../errors.js';
import type { RunCheckSettings } from '../repair/checks/runs.js';
import { measureRunReference, runGenerated } from '../repair/run-reference.js';
import type { DotDiscopop } from '../formats/types.js';
import type { RunContext } from './session.js';
import type { RunTally } from './tally.js';

export async function runCheckStage(context: RunContext, tally: RunTally, o: { dp: DotDiscopop; pool: BuildPool; repairs: number }): Promise<RunCheckSettings | undefined> {
  const { options, emit, interrupt } = context;
  const held = tally.heldForRuns.splice(0);
  if (options.checkRun === 'off' || (o.repairs === 0 && held.length === 0)) {
    for (const record of held) await tally.finish(record.record);
    return undefined;
  }
  const reference = await measureRunReference({ pool: o.pool, config: o.dp.config, options });
  interrupt.check();
  if (!reference.ok) throw new RefusedError(reference.refusal);
  emit({ type: 'run-reference', ...reference.record });
  await Promise.all(
    held.map(async ({ suggestion, record }) => {
      const ran = await runGenerated(o.pool, suggestion.id, generatedPatchSet(suggestion), reference.settings);
      await tally.finish({ ...record, run_check: ran });
    }),
  );
  interrupt.check();
  return reference.settings;
}
