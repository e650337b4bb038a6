// --check-run, before any repair: the project without any suggestion is run twice with execute.sh
// (the reference and its noise floor); a reference that cannot be compared with refuses the run.
// With `all`, every suggestion that builds as generated is then run like a candidate, and its
// record says whether it runs the same (its status stays ok).
import { generatedPatchSet } from '../build/index.js';
import { RefusedError } from '../errors.js';
import type { RunCheckSettings } from '../repair/checks/runs.js';
import { measureRunReference, runGenerated, type ReferenceProgram } from '../repair/run-reference.js';
import type { VerifyBuilder } from '../formats/outcome.js';
import type { SuggestionRecord } from '../formats/results.js';
import type { DotDiscopop, Suggestion } from '../formats/types.js';
import { emitFinished } from './records.js';
import type { RaceStage } from './race-check.js';
import type { RunContext } from './session.js';

export async function runCheckStage(
  context: RunContext,
  o: {
    dp: DotDiscopop;
    pool: ReferenceProgram & VerifyBuilder;
    repairs: number;
    held: readonly SuggestionRecord[];
    considered: readonly Suggestion[];
    races: RaceStage;
  },
): Promise<RunCheckSettings | undefined> {
  const { options, emit, interrupt } = context;
  const { held } = o;
  if (options.checkRun === 'off' || (o.repairs === 0 && held.length === 0)) {
    await Promise.all(held.map(async (record) => emitFinished(context, await o.races.annotate(record))));
    return undefined;
  }
  const reference = await measureRunReference({ pool: o.pool, config: o.dp.config, options });
  interrupt.check();
  if (!reference.ok) throw new RefusedError(reference.refusal);
  emit({ type: 'run-reference', ...reference.record });
  const byId = new Map(o.considered.map((s) => [s.id, s]));
  await Promise.all(
    held.map(async (record) => {
      const ran = await runGenerated(o.pool, record.id, generatedPatchSet(byId.get(record.id)!), reference.settings);
      emitFinished(context, await o.races.annotate({ ...record, run_check: ran }));
    }),
  );
  await context.saved();
  interrupt.check();
  return reference.settings;
}
