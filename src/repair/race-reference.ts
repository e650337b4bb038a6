// --check-races' reference: the project without any suggestion, built with the race settings
// (clang -fopenmp -fsanitize=thread) in a workspace of its own and run once like a candidate.
// Its own races are subtracted from every candidate's. A reference that cannot be built that way,
// or whose program TSan does not instrument, refuses the run (exit 3): a race check that silently
// checks nothing would read as "no races".
import { toTheMillisecond } from '../formats/statuses.js';
import type { IsolatedBuilder, ProgramRunner, IsolatedBuild } from '../formats/outcome.js';
import type { RaceCheck } from '../formats/results.js';
import { isBuildFailure, type BuildResult } from '../formats/build-result.js';
import { RACE_SLOWDOWN, RUN_TIMEOUT_FACTOR, RUN_TIMEOUT_FLOOR_S, type RunOptions } from '../formats/run-options.js';
import type { PatchSet } from '../formats/types.js';
import {
  compilerText,
  installText,
  judgeRaces,
  pairText,
  raceFlagsOf,
  raceRun,
  raceSettingsOf,
  type RaceCheckSetup,
  type RaceRun,
} from './checks/races.js';
import { resolveRaceCompiler } from './checks/race-compiler.js';

export type RaceReferenceResult =
  | {
      ok: true;
      setup: RaceCheckSetup;
      record: { seconds: number; races: string[]; compiler: string; setarch: boolean };
    }
  | { ok: false; refusal: string }
  /** The race tools work but this project does not build or run with them: said once, the run goes on unchecked. */
  | { ok: false; unchecked: string };

export async function measureRaceReference(o: {
  pool: IsolatedBuilder;
  settings: Readonly<Record<string, string>>;
  /** Where compilers are found when the settings name no PATH of their own. */
  searchPath: string;
  options: Pick<RunOptions, 'runThreads' | 'runTimeoutS' | 'buildTimeoutS' | 'raceCc'>;
}): Promise<RaceReferenceResult> {
  const compiler = await resolveRaceCompiler({
    settings: o.settings,
    searchPath: o.searchPath,
    ...(o.options.raceCc !== undefined && { raceCc: o.options.raceCc }),
  });
  const settings = raceSettingsOf(o.settings, compiler);
  const searchPath = o.settings['PATH'] ?? o.searchPath;
  const threads = o.options.runThreads;
  const started = Date.now();
  const limitMs =
    (o.options.runTimeoutS !== undefined ? o.options.runTimeoutS * RACE_SLOWDOWN : o.options.buildTimeoutS) * 1000;
  const refuse = (why: string): RaceReferenceResult => ({ ok: false, refusal: `--check-races: ${why}` });
  const install = installText(compiler);
  const flags = raceFlagsOf(compiler);
  const using = `CC=${compiler.cc} CXX=${compiler.cxx}`;
  if (!compiler.links)
    return refuse(
      `${compiler.cc} cannot build a program with -fopenmp -fsanitize=thread (${compiler.chosen}); ${install}`,
    );
  const { build, ran } = await o.pool.isolatedBuildThen(
    { folder: 'races-reference', label: 'race reference', settings, patchSet: new Map(), threads: 1 },
    (program, built) =>
      raceRun(program, built, { threads, timeoutMs: limitMs, symbolizer: compiler.symbolizer, searchPath }),
  );
  if (!ran) {
    return {
      ok: false,
      unchecked: `races cannot be checked for this project: ${compiler.cc} links OpenMP programs with ThreadSanitizer, but the project without any suggestion does not build with it (${using}, ${flags}): ${build.firstError ?? 'no error message'}`,
    };
  }
  if (ran.mapping?.still)
    return refuse(
      `ThreadSanitizer of ${compiler.cc} dies with "unexpected memory mapping": the kernel's vm.mmap_rnd_bits is more than TSan before clang 18 supports, and ${ran.mapping.retried ? 'the run again under setarch -R (no address randomization) died the same way' : 'setarch, which runs it without address randomization, is not installed'}; lower it (sysctl vm.mmap_rnd_bits=28) or use clang 18 or newer (--race-cc)`,
    );
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
      `the project without any suggestion, built with ${using} and ${flags}, runs without ThreadSanitizer: compile.sh ignores the settings' compiler or flags (make it use $CC/$CXX and $CFLAGS/$CXXFLAGS), or the TSan runtime is missing; ${install}`,
    );
  }
  const seconds = (Date.now() - started) / 1000;
  const runSeconds = ran.run.durationMs / 1000;
  const timeoutS =
    o.options.runTimeoutS !== undefined
      ? o.options.runTimeoutS * RACE_SLOWDOWN
      : Math.max(RUN_TIMEOUT_FLOOR_S, Math.ceil(RUN_TIMEOUT_FACTOR * runSeconds));
  const own = o.settings['CC']?.trim().split(/\s+/)[0] ?? '';
  return {
    ok: true,
    setup: {
      buildSettings: settings,
      compiler,
      projectGcc: /(^|\/)(gcc|g\+\+|cc)(-\d+)?$/.test(own),
      threads,
      timeoutMs: timeoutS * 1000,
      known: new Set(ran.reports.map((r) => r.key)),
      searchPath,
    },
    record: {
      seconds: toTheMillisecond(seconds),
      races: ran.reports.map(pairText),
      compiler: compilerText(compiler),
      setarch: ran.mapping?.retried ?? false,
    },
  };
}

/** Race builds of one run, numbered: each gets a folder of its own. */
let serial = 0;

/**
 * Builds `patchSet` with the race settings and runs it. A race build that fails (the plain one
 * passed: the reference's did too) rejects the candidate with the compiler's message: a repair
 * must build under both compilers DiscoPoP uses.
 */
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
      raceRun(program, built, {
        threads: s.threads,
        timeoutMs: s.timeoutMs,
        symbolizer: s.compiler.symbolizer,
        searchPath: s.searchPath,
      }),
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
        compiler: compilerText(s.compiler),
        setarch: false,
      },
      reason: `The project builds with the corrected patch set under its own compiler, but not with ${s.compiler.cc} (the race build: ${raceFlagsOf(s.compiler)}), which builds the project without any suggestion:\n${compilerMessage(build)}\nA repair must build under both compilers DiscoPoP uses: keep every directive and write it so that clang accepts it too.`,
    };
  }
  return judgeRaces(ran, s, seconds);
}

/** The compiler's errors as it wrote them, else the end of compile.sh's output. */
function compilerMessage(build: BuildResult): string {
  const errors = build.diagnostics
    .filter(isBuildFailure)
    .slice(0, 10)
    .map((d) => `${d.file}:${d.line}:${d.column}: ${d.severity}: ${d.message}`);
  if (errors.length > 0) return errors.join('\n');
  return build.output.trim().split('\n').slice(-20).join('\n');
}
