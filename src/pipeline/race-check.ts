// --check-races, before any repair: the project without any suggestion is built with the race
// settings and run once (its own races are named once and not held against any repair); a
// reference that cannot be built that way refuses the run. With `all`, every suggestion that builds
// as generated is race-checked too and the races are recorded as evidence (its status stays ok).
import { generatedPatchSet } from '../build/index.js';
import { RefusedError } from '../errors.js';
import type { IsolatedBuilder } from '../formats/outcome.js';
import type { SuggestionRecord } from '../formats/results.js';
import type { DotDiscopop, Suggestion } from '../formats/types.js';
import type { RaceCheckSetup } from '../repair/checks/races.js';
import { runRaceCheck, measureRaceReference } from '../repair/race-reference.js';
import type { RunContext } from './session.js';

export interface RaceStage {
  setup: RaceCheckSetup | undefined;
  /** A held record (builds as generated) with its race check under `all`; as it is otherwise. */
  annotate(record: SuggestionRecord): Promise<SuggestionRecord>;
}

export async function raceCheckStage(
  context: RunContext,
  o: {
    dp: DotDiscopop;
    pool: IsolatedBuilder;
    repairs: number;
    held: readonly SuggestionRecord[];
    considered: readonly Suggestion[];
    searchPath: string;
  },
): Promise<RaceStage> {
  const { options, emit, interrupt } = context;
  const asIs = async (record: SuggestionRecord) => record;
  if (options.checkRaces === 'off' || (o.repairs === 0 && (options.checkRaces !== 'all' || o.held.length === 0)))
    return { setup: undefined, annotate: asIs };
  const reference = await measureRaceReference({
    pool: o.pool,
    settings: o.dp.config.settings,
    searchPath: o.searchPath,
    options,
  });
  interrupt.check();
  if (!reference.ok) {
    if ('refusal' in reference) throw new RefusedError(reference.refusal);
    emit({ type: 'notice', level: 'warning', message: `--check-races: ${reference.unchecked}` });
    return { setup: undefined, annotate: asIs };
  }
  emit({
    type: 'race-reference',
    seconds: reference.record.seconds,
    threads: reference.setup.threads,
    races: reference.record.races,
    compiler: reference.record.compiler,
    setarch: reference.record.setarch,
  });
  const setup = reference.setup;
  if (options.checkRaces !== 'all') return { setup, annotate: asIs };
  const byId = new Map(o.considered.map((s) => [s.id, s]));
  return {
    setup,
    annotate: async (record) => {
      const suggestion = byId.get(record.id);
      if (!suggestion) return record;
      const judged = await runRaceCheck(o.pool, record.id, generatedPatchSet(suggestion), setup);
      return { ...record, race_check: judged.record };
    },
  };
}
