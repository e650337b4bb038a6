// --check-run's reference: the sequential program, run twice with execute.sh at one thread. It is
// the suggestions' reference build at one thread when their settings are seq_settings.json plus
// -fopenmp, and a clean build with seq_settings.json when a par_settings.json differs from that.
// The first run is what candidates must reproduce; where the second differs from it is
// the noise floor. A reference that fails, or whose runs share nothing, leaves nothing to check
// against: the run is refused before any repair (exit 3), with one line saying why.
import { toTheMillisecond } from '../formats/statuses.js';
import { access } from 'node:fs/promises';
import { executeScriptOf } from '../build/execute.js';
import type { ProgramRun, ProgramRunner, ValidationStep, VerifyBuilder } from '../formats/outcome.js';
import { findValidationScripts, validationPassed } from '../build/validate.js';
import type { RunCheck } from '../formats/results.js';
import { RUN_TIMEOUT_FACTOR, RUN_TIMEOUT_FLOOR_S, type RunOptions } from '../formats/run-options.js';
import type { BuildConfig, BuildResult, PatchSet } from '../formats/types.js';
import { differsEverywhere, noiseFloor, outputLines } from './output-compare.js';
import { judgeRuns, type RunCheckSettings } from './checks/runs.js';

/** What the reference runs need from the build stage (BuildPool). */
export interface ReferenceProgram {
  withReferenceProgram<T>(then: (program: ProgramRunner) => Promise<T>): Promise<T>;
  withSequentialProgram<T>(
    settings: Record<string, string>,
    then: (program: ProgramRunner) => Promise<T>,
  ): Promise<{ build: BuildResult; ran: T | null }>;
}

export type RunReferenceResult =
  | { ok: true; settings: RunCheckSettings; record: { seconds: number; noise_lines: number } }
  | { ok: false; refusal: string };

type RunSettings = Pick<RunOptions, 'runThreads' | 'runRepeats' | 'runTolerance' | 'runTimeoutS' | 'buildTimeoutS'>;

export async function measureRunReference(o: {
  pool: ReferenceProgram;
  config: Pick<BuildConfig, 'dir' | 'compileScript' | 'seqSettings' | 'seqSettingsProblem'>;
  options: RunSettings;
}): Promise<RunReferenceResult> {
  if (o.config.seqSettingsProblem)
    return {
      ok: false,
      refusal: `--check-run: the sequential program cannot be built: ${o.config.seqSettingsProblem}`,
    };
  const script = executeScriptOf(o.config);
  const refuse = (why: string): RunReferenceResult => ({ ok: false, refusal: `--check-run: ${script}: ${why}` });
  if (
    !(await access(script).then(
      () => true,
      () => false,
    ))
  ) {
    return refuse("expected the configuration's execute.sh, which runs the program; it is missing");
  }
  // The reference's own time is not known yet: its runs get the limit a build gets.
  const limitMs = (o.options.runTimeoutS ?? o.options.buildTimeoutS) * 1000;
  const twice = async (program: ProgramRunner) =>
    [await program.run(1, limitMs), await program.run(1, limitMs)] as const;
  let runs: Awaited<ReturnType<typeof twice>>;
  if (o.config.seqSettings) {
    const sequential = await o.pool.withSequentialProgram(o.config.seqSettings, twice);
    if (!sequential.ran)
      return refuse(
        `the sequential build (seq_settings.json, no suggestion) fails: ${sequential.build.firstError ?? 'no error message'}`,
      );
    runs = sequential.ran;
  } else {
    runs = await o.pool.withReferenceProgram(twice);
  }
  const [first, second] = runs;
  const failed = [first, second].find((run) => run.ending !== 'exited' || run.exitCode !== 0);
  if (failed)
    return refuse(
      `the project without any suggestion ${failure(failed)}; fix execute.sh (DiscoPoP's placeholder exits 1) so that it runs the program and exits 0`,
    );
  const invalid = [first, second].find((run) => run.validation && !validationPassed(run.validation));
  if (invalid?.validation)
    return {
      ok: false,
      refusal: await validationRefusal(invalid.validation, o.config, o.options.runTimeoutS, limitMs),
    };
  const floor = noiseFloor(first.output, second.output);
  if (differsEverywhere(floor)) {
    return refuse(
      `two runs of the project without any suggestion print different output on every one of their ${floor.lines.length} lines, so nothing is left to compare; make execute.sh print the program's results`,
    );
  }
  const seconds = first.durationMs / 1000;
  const timeoutS = o.options.runTimeoutS ?? Math.max(RUN_TIMEOUT_FLOOR_S, Math.ceil(RUN_TIMEOUT_FACTOR * seconds));
  const limit =
    o.options.runTimeoutS === undefined
      ? `${RUN_TIMEOUT_FACTOR} × the sequential time (the limit is ${timeoutS} s; the sequential run took ${seconds.toFixed(1)} s)`
      : `the --run-timeout of ${timeoutS} s`;
  return {
    ok: true,
    settings: {
      reference: { exitCode: 0, floor, seconds, timeoutMs: timeoutS * 1000, limit },
      threads: o.options.runThreads,
      repeats: o.options.runRepeats,
      tolerance: o.options.runTolerance,
    },
    record: { seconds: toTheMillisecond(seconds), noise_lines: floor.noisy.size },
  };
}

/** --check-run all: each suggestion that builds as generated, built again and run like a candidate. */
export async function runGenerated(
  pool: VerifyBuilder,
  id: string,
  generated: PatchSet,
  settings: RunCheckSettings,
): Promise<RunCheck> {
  const { build, ran } = await pool.buildThen(id, generated, 'verify', (program) => judgeRuns(program, settings));
  return (
    ran?.record ?? {
      threads: settings.threads,
      repeats: settings.repeats,
      verdict: 'not-run',
      first_difference: `the generated patch set no longer builds: ${build.firstError ?? 'no error message'}`,
      validate: null,
    }
  );
}

/** The refusal when validate.sh (or the build before it) fails after a run of the reference, naming the script. */
async function validationRefusal(
  v: ValidationStep,
  config: Pick<BuildConfig, 'dir' | 'compileScript'>,
  runTimeoutS: number | undefined,
  limitMs: number,
): Promise<string> {
  const scripts = await findValidationScripts(config);
  const where =
    v.script === 'validate.sh'
      ? scripts?.validate
      : v.script === 'compile_validate.sh'
        ? scripts?.compileValidate
        : config.compileScript;
  const limit =
    runTimeoutS === undefined
      ? `the ${limitMs / 1000} s the reference may take`
      : `the --run-timeout of ${runTimeoutS} s`;
  return `--check-run: ${where ?? v.script}: after a run of the project without any suggestion, ${v.script} ${validationFailure(v, limit)}; a validation that rejects the sequential program cannot tell a right repair from a wrong one, so fix it first`;
}

/** One line (the refusal's): the script's exit code or how it ended, and its last line. */
function validationFailure(v: ValidationStep, limit: string): string {
  const last = outputLines(v.output).at(-1);
  const said = last === undefined ? ', printing nothing' : `; its last line: ${last.trim()}`;
  if (v.ending === 'timeout')
    return `did not finish within ${v.script === 'validate.sh' ? limit : 'the --build-timeout'}${said}`;
  if (v.ending === 'signaled') return `was killed by ${v.signal}${said}`;
  return `exits with code ${v.exitCode}${said}`;
}

function failure(run: ProgramRun): string {
  const last = outputLines(run.output).at(-1);
  const said = last === undefined ? ' and prints nothing' : `; its last line: ${last.trim()}`;
  if (run.ending === 'timeout') return 'did not finish its run within the time limit';
  if (run.ending === 'signaled') return `was killed by ${run.signal} in its run${said}`;
  return `exits with code ${run.exitCode} from execute.sh${said}`;
}
