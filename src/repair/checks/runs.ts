// Check 7 (--check-run): the candidate's build, run with the configuration's execute.sh, must
// behave like the reference build: the same exit code and the same output outside the noise
// floor, at 1 thread and in every one of K runs at N threads (a race shows up in some runs only).
// The first run that differs ends the check; its description is what the model is told.
import { constants } from 'node:os';
import type { ProgramRun, ProgramRunner, ValidationStep } from '../../formats/outcome.js';
import type { RunCheck, ValidationTally } from '../../formats/results.js';
import { compareOutput, outputLines, type NoiseFloor } from '../output-compare.js';
import { pass, reject, type CheckOutcome } from './result.js';
import { validationPassed } from '../../build/validate.js';
import { toTheMillisecond } from '../../formats/statuses.js';

/** The reference program as two runs of it saw it: what every candidate is compared with. */
export interface RunReference {
  exitCode: number;
  floor: NoiseFloor;
  /** The first reference run's wall time. */
  seconds: number;
  timeoutMs: number;
  /** How the limit reads in a rejection: `10 × the sequential time (60 s)`, or the --run-timeout. */
  limit: string;
}

export interface RunCheckSettings {
  reference: RunReference;
  threads: number;
  repeats: number;
  tolerance: number;
}

/** What the runs of one build showed: the record and, when they differ, the follow-up text. */
export interface RunJudgement {
  record: RunCheck;
  reason: string | null;
}

/** Lines of a failing run's output quoted in its rejection. */
const TAIL_LINES = 8;

export async function judgeRuns(program: ProgramRunner, s: RunCheckSettings): Promise<RunJudgement> {
  let validate: ValidationTally | null = null;
  const runAt = async (threads: number) => {
    const run = await program.run(threads, s.reference.timeoutMs);
    if (run.validation) validate = tallyValidation(validate, run.validation);
    return run;
  };
  const record = (verdict: RunCheck['verdict'], firstDifference: string | null): RunCheck => ({
    threads: s.threads,
    repeats: s.repeats,
    verdict,
    first_difference: firstDifference,
    validate,
  });
  const sequential = judgeRun(await runAt(1), s);
  if (sequential)
    return {
      record: record(sequential.verdict, `at 1 thread: ${sequential.text}`),
      reason: `at 1 thread: ${sequential.text}`,
    };
  for (let repeat = 1; repeat <= s.repeats; repeat++) {
    const parallel = judgeRun(await runAt(s.threads), s);
    if (!parallel) continue;
    const where = `at ${s.threads} threads, run ${repeat} of ${s.repeats}: ${parallel.text}`;
    return {
      record: record(parallel.verdict, where),
      reason: `${where}\nAt 1 thread the output matches${repeat > 1 ? `, and so did the ${repeat - 1} run${repeat > 2 ? 's' : ''} at ${s.threads} threads before` : ''}.`,
    };
  }
  return { record: record('same', null), reason: null };
}

/** Check 7's outcome for the verify sequence: the judgement passes or its reason goes to the model. */
export function runsOutcome(judgement: RunJudgement): CheckOutcome<RunCheck> {
  if (judgement.reason === null) return pass(judgement.record);
  if (judgement.record.verdict === 'invalid') {
    return reject(
      `The project builds with the corrected patch set and its program runs, but the configuration's validation (validate.sh checks a run's results, on the build compile_validate.sh makes when there is one) does not pass:\n${judgement.reason}\nWhen validate.sh rejects the results, a data-sharing clause that lets threads write one variable (shared instead of private, a missing or wrong reduction) does this; keep every directive and fix its clauses.`,
    );
  }
  return reject(
    `The project builds with the corrected patch set, but the program does not run like the sequential build (the configuration's execute.sh, compared outside the lines that differ between two sequential runs):\n${judgement.reason}\nA data-sharing clause that lets threads write one variable (shared instead of private, a missing or wrong reduction) does this; keep every directive and fix its clauses.`,
  );
}

/** Why one run does not match the reference, or null when it does. */
function judgeRun(
  run: ProgramRun,
  s: RunCheckSettings,
): { verdict: Exclude<RunCheck['verdict'], 'same' | 'not-run'>; text: string } | null {
  const { reference } = s;
  if (run.ending === 'timeout') return { verdict: 'timeout', text: `runs over ${reference.limit} and was stopped` };
  if (run.ending === 'signaled') return { verdict: 'crashed', text: `killed by ${run.signal}${tail(run.output)}` };
  if (run.exitCode !== reference.exitCode) {
    const killed = signalOfShellCode(run.exitCode ?? 0);
    const how = `exits with code ${run.exitCode}${killed ? ` (a process killed by ${killed})` : ''}, the sequential build with ${reference.exitCode}`;
    return { verdict: killed ? 'crashed' : 'differs', text: `${how}${tail(run.output)}` };
  }
  if (run.validation && !validationPassed(run.validation))
    return { verdict: 'invalid', text: describeValidation(run.validation, reference.limit) };
  const comparison = compareOutput(reference.floor, run.output, s.tolerance);
  return comparison.same ? null : { verdict: 'differs', text: comparison.difference };
}

/** How a failed validation step reads in a candidate's rejection; `limit` is validate.sh's. */
function describeValidation(v: ValidationStep, limit: string): string {
  const what =
    v.script === 'validate.sh'
      ? 'validate.sh'
      : v.script === 'compile_validate.sh'
        ? 'compile_validate.sh (the build validate.sh checks)'
        : 'compile.sh, run again after compile_validate.sh replaced the build,';
  if (v.ending === 'timeout')
    return `${what} runs over ${v.script === 'validate.sh' ? limit : 'the --build-timeout'} and was stopped${tail(v.output)}`;
  if (v.ending === 'signaled') return `${what} was killed by ${v.signal}${tail(v.output)}`;
  return `${what} exits with code ${v.exitCode}${tail(v.output)}`;
}

function tallyValidation(sum: ValidationTally | null, v: ValidationStep): ValidationTally {
  return {
    runs: (sum?.runs ?? 0) + (v.script === 'validate.sh' ? 1 : 0),
    passed: (sum?.passed ?? true) && validationPassed(v),
    built_by: v.builtBy,
    seconds: toTheMillisecond((sum?.seconds ?? 0) + v.durationMs / 1000),
  };
}

/** A shell reports a child killed by signal n as exit code 128 + n. */
function signalOfShellCode(code: number): string | null {
  const number = code - 128;
  if (number <= 0) return null;
  return Object.entries(constants.signals).find(([, value]) => value === number)?.[0] ?? null;
}

function tail(output: string): string {
  const lines = outputLines(output);
  if (lines.length === 0) return '; it printed nothing';
  const last = lines.slice(-TAIL_LINES);
  return `; the last ${last.length === 1 ? 'line' : `${last.length} lines`} of its output:\n${last.join('\n')}`;
}
