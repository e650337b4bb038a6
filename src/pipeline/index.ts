// preflight → discovery → (--check-run) reference runs → repair → write-back → summary (design.md, Pipeline). The stages beside
// this file do the work; this file only composes them and ends the run with the exit code of what ended it.
import { endingOf, type Ending } from '../errors.js';
import { trapSignals, type Interrupt } from '../interrupt.js';
import { createReporter, type Reporter } from '../report/reporter.js';
import { unrepairedRecord } from '../formats/suggestion-records.js';
import type { RunOptions } from '../formats/run-options.js';
import { changedUnitsFirst, type BuildPool } from '../build/index.js';
import type { Agent } from '../agent/types.js';
import { discoveryStage, notePlacement, openPool } from './discovery.js';
import { finish, runRecord } from './finish.js';
import { runInputs } from './inputs.js';
import { preflight, type Preflight } from './preflight.js';
import { chooseAgent, repairStage } from './repair.js';
import { resumeStage, type Resume } from './resume.js';
import { runCheckStage } from './run-check.js';
import { raceCheckStage } from './race-check.js';
import { restore } from './restore.js';
import { emitFinished } from './records.js';
import { Session, type RunContext } from './session.js';

/** Runs one invocation and returns its exit code; `env` is the environment the CLI was started with. */
export async function run(options: RunOptions, stdout: NodeJS.WritableStream, env: NodeJS.ProcessEnv): Promise<number> {
  const interrupt = trapSignals();
  const reporter = createReporter({ stream: stdout });
  try {
    return options.mode === 'restore'
      ? await restore(options, reporter)
      : await pipeline(options, reporter, interrupt, stdout, env);
  } catch (error) {
    throw endingOf(error, interrupt)?.error ?? error;
  } finally {
    interrupt.release();
    reporter.close();
  }
}

async function pipeline(
  o: RunOptions,
  reporter: Reporter,
  interrupt: Interrupt,
  stdout: NodeJS.WritableStream,
  env: NodeJS.ProcessEnv,
) {
  const session = new Session(o, reporter, interrupt);
  try {
    await session.lock();
    const pre = await preflight(o, env);
    const inputs = await runInputs(o, pre, interrupt.signal);
    const context = await session.begin({ inputs, stdout });
    announce(context, pre);
    let pool: BuildPool | undefined;
    let ending: Ending | null = null;
    try {
      // With no suggestion considered there is nothing to build; the summary says why.
      if (pre.considered.length > 0) {
        // Before any build: a run must not spend its builds before learning its agent cannot start.
        const agent = o.mode === 'discover-only' ? null : await chooseAgent(context, pre.ladder!);
        const resume = inputs && (await resumeStage(context, inputs, pre));
        pool = await openPool(context, pre.dp, (cleanup) => session.defer(cleanup));
        await buildAndRepair(context, { pre, pool, agent, resume, digests: inputs?.digests ?? new Map() });
      }
    } catch (error) {
      ending = endingOf(error, interrupt);
      if (!ending) throw error;
      context.emit({ type: 'ended', reason: ending.reason, exit_code: ending.error.exitCode });
    }
    notePlacement(context, pool);
    const exitCode = await finish(context, pre);
    if (ending) throw ending.error;
    return exitCode;
  } finally {
    await session.close();
  }
}

/** The run's first event, then the warnings of its input (options, .discopop, prompt ladder). */
function announce(context: RunContext, pre: Preflight): void {
  const { options, emit } = context;
  const identity = { backend: null, model: null };
  emit({
    type: 'run-started',
    run: runRecord(context, { identity, resumedFrom: null, notConsidered: pre.notConsidered }),
  });
  for (const notice of [...(options.notices ?? []), ...pre.dp.notices, ...(pre.ladder?.warnings ?? [])])
    emit({ type: 'notice', level: 'warning', message: notice });
}

/** Discovery, then (but under --discover-only) the race and run references and the repairs of what fails. */
async function buildAndRepair(
  context: RunContext,
  o: {
    pre: Preflight;
    pool: BuildPool;
    agent: Agent | null;
    resume: Resume | null;
    digests: ReadonlyMap<string, string>;
  },
): Promise<void> {
  const { pre, pool } = o;
  const { failing, held } = await discoveryStage(context, pre, pool, {
    reused: o.resume?.builds,
    digests: o.digests,
    screened: o.resume?.screened,
  });
  if (context.options.mode === 'discover-only') {
    for (const { suggestion, build } of failing)
      emitFinished(context, unrepairedRecord(suggestion, build, { status: 'failed', reason: null }));
    return;
  }
  const stage = {
    dp: pre.dp,
    pool,
    repairs: failing.length,
    held,
    considered: pre.considered,
    searchPath: pre.searchPath,
  };
  const races = await raceCheckStage(context, stage);
  // Check 6's and --check-run's builds compile only what a patch set changes, then link.
  const verify = changedUnitsFirst(pre.dp, pool);
  const runCheck = await runCheckStage(context, { ...stage, verify, races });
  if (failing.length === 0) return;
  await repairStage(context, failing, {
    dp: pre.dp,
    pool,
    verify,
    agent: o.agent,
    ladder: pre.ladder!,
    attempts: o.resume?.attempts ?? new Map(),
    runCheck,
    raceCheck: races.setup,
  });
  context.interrupt.check();
}
