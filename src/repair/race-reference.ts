// --check-races' reference: the project without any suggestion, built with the race settings
// (clang -fopenmp -fsanitize=thread) in a workspace of its own and run once like a candidate.
// Its own races are subtracted from every candidate's. A reference that cannot be built that way,
// or whose program TSan does not instrument, refuses the run (exit 3): a race check that silently
// checks nothing would read as "no races".
import { toTheMillisecond } from '../formats/statuses.js';
import type { IsolatedBuilder, ProgramRunner, IsolatedBuild } from '../formats/outcome.js';
import type { RaceCheck } from '../formats/results.js';
import { RACE_SLOWDOWN, RUN_TIMEOUT_FACTOR, RUN_TIMEOUT_FLOOR_S, type RunOptions } from '../formats/run-options.js';
import type { PatchSet } from '../formats/types.js';
import {
  judgeRaces,
  pairText,
  RACE_FLAGS,
  RACE_PACKAGES,
  raceRun,
  raceSettingsOf,
  type RaceCheckSetup,
  type RaceRun,
} from './checks/races.js';

export type RaceReferenceResult =
  { ok: true; setup: RaceCheckSetup; record: { seconds: number; races: string[] } } | { ok: false; refusal: string };

const INSTALL = `install the Debian packages ${RACE_PACKAGES}`;

export async function measureRaceReference(o: {
  pool: IsolatedBuilder;
  settings: Readonly<Record<string, string>>;
  options: Pick<RunOptions, 'runThreads' | 'runTimeoutS' | 'buildTimeoutS'>;
}): Promise<RaceReferenceResult> {
  const settings = raceSettingsOf(o.settings);
  const threads = o.options.runThreads;
  const started = Date.now();
  const limitMs =
    (o.options.runTimeoutS !== undefined ? o.options.runTimeoutS * RACE_SLOWDOWN : o.options.buildTimeoutS) * 1000;
  const { build, ran } = await o.pool.isolatedBuildThen(
    { folder: 'races-reference', label: 'race reference', settings, patchSet: new Map(), threads: 1 },
    (program, built) => raceRun(program, built, { threads, timeoutMs: limitMs }),
  );
  const refuse = (why: string): RaceReferenceResult => ({ ok: false, refusal: `--check-races: ${why}` });
  if (!ran) {
    return refuse(
      `the project without any suggestion does not build with clang ${RACE_FLAGS} (CC=clang CXX=clang++): ${build.firstError ?? 'no error message'}; ${INSTALL}`,
    );
  }
  // A run stopped before TSan wrote its log says nothing about whether TSan was there.
  if (ran.run.ending !== 'exited')
    return refuse(
      `the project without any suggestion, built for race detection, ${ran.run.ending === 'timeout' ? 'did not finish its run within the time limit' : `was killed by ${ran.run.signal}`}`,
    );
  if (!ran.instrumented) {
    if (ran.run.ending === 'exited' && ran.run.exitCode !== 0)
      return refuse(
        `the project without any suggestion, built for race detection, exits with code ${ran.run.exitCode} from execute.sh; fix execute.sh so that it runs the program and exits 0`,
      );
    return refuse(
      `the project without any suggestion, built with CC=clang and ${RACE_FLAGS}, runs without ThreadSanitizer: compile.sh ignores the settings' compiler or flags (make it use $CC/$CXX and $CFLAGS/$CXXFLAGS), or the TSan runtime is missing; ${INSTALL}`,
    );
  }
  const seconds = (Date.now() - started) / 1000;
  const runSeconds = ran.run.durationMs / 1000;
  const timeoutS =
    o.options.runTimeoutS !== undefined
      ? o.options.runTimeoutS * RACE_SLOWDOWN
      : Math.max(RUN_TIMEOUT_FLOOR_S, Math.ceil(RUN_TIMEOUT_FACTOR * runSeconds));
  return {
    ok: true,
    setup: {
      buildSettings: settings,
      threads,
      timeoutMs: timeoutS * 1000,
      known: new Set(ran.reports.map((r) => r.key)),
    },
    record: { seconds: toTheMillisecond(seconds), races: ran.reports.map(pairText) },
  };
}

/** Race builds of one run, numbered: each gets a folder of its own. */
let serial = 0;

/** Builds `patchSet` with the race settings and runs it; `not-run` with why when it does not build. */
export async function runRaceCheck(
  pool: IsolatedBuilder,
  id: string,
  patchSet: PatchSet,
  s: RaceCheckSetup,
): Promise<{ record: RaceCheck; reason: string | null }> {
  const started = Date.now();
  const { build, ran } = await pool.isolatedBuildThen(
    {
      folder: `races-${id.replace(/[^\w.-]/g, '_')}-${++serial}`,
      label: `${id}-races`,
      settings: s.buildSettings,
      patchSet,
      threads: 1,
    },
    (program: ProgramRunner, built: IsolatedBuild): Promise<RaceRun> =>
      raceRun(program, built, { threads: s.threads, timeoutMs: s.timeoutMs }),
  );
  const seconds = (Date.now() - started) / 1000;
  if (!ran) {
    return {
      record: {
        threads: s.threads,
        verdict: 'not-run',
        reports: [],
        seconds: toTheMillisecond(seconds),
        detail: `the race build fails: ${build.firstError ?? 'no error message'}`,
      },
      reason: null,
    };
  }
  return judgeRaces(ran, s, seconds);
}
