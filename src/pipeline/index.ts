// preflight → discovery → (--check-run) reference runs → repair → write-back → summary (design.md, Pipeline). The stages beside
// this file do the work; this file only composes them and turns interrupts into exit codes.
import { ClusterError, EXIT_CODES, InterruptedError, RefusedError } from '../errors.js';
import { trapSignals, type Interrupt } from '../interrupt.js';
import { createReporter, type Reporter } from '../report/reporter.js';
import { ProgressLines } from '../report/progress-lines.js';
import { unrepairedRecord, type Reason } from '../formats/run-records.js';
import type { RunOptions } from '../formats/run-options.js';
import type { BuildPool } from '../build/index.js';
import { discoveryStage, notePlacement, openPool } from './discovery.js';
import { finish, runRecord, type RunScope } from './finish.js';
import { prepareResume, preflight, repairedEarlierIds } from './preflight.js';
import { chooseAgent, NO_AGENT_END, repairStage } from './repair.js';
import { runCheckStage } from './run-check.js';
import { raceCheckStage } from './race-check.js';
import { restore } from './restore.js';
import { emitFinished } from './records.js';
import { Session } from './session.js';

/** Runs one invocation and returns its exit code. */
export async function run(options: RunOptions, stdout: NodeJS.WritableStream = process.stdout): Promise<number> {
  const interrupt = trapSignals();
  const reporter = createReporter({ stream: stdout });
  try {
    return options.mode === 'restore'
      ? await restore(options, reporter)
      : await pipeline(options, reporter, interrupt, stdout);
  } catch (error) {
    if (interrupt.signal.aborted) throw new InterruptedError(interrupt.received!);
    throw error;
  } finally {
    interrupt.release();
    reporter.close();
  }
}

async function pipeline(
  options: RunOptions,
  reporter: Reporter,
  interrupt: Interrupt,
  stdout: NodeJS.WritableStream,
): Promise<number> {
  const session = new Session(options, reporter, interrupt);
  try {
    await session.lock();
    const pre = await preflight(options);
    const context = await session.begin();
    // DiscoPoP's tab follows the run through these lines. Each is one write, so a line is never
    // split by the live lines, which that tab reads merged into the same pipe.
    if (options.progressLines) {
      const lines = new ProgressLines((line) => stdout.write(`${line}\n`));
      context.subscribe({ apply: (event) => lines.apply(event), saved: async () => {} });
    }
    const { emit } = context;
    emit({
      type: 'run-started',
      run: runRecord(context, {
        identity: { backend: null, model: null },
        resumedFrom: null,
        notConsidered: pre.notConsidered,
      }),
    });
    for (const notice of [...(options.notices ?? []), ...pre.dp.notices, ...(pre.ladder?.warnings ?? [])])
      emit({ type: 'notice', level: 'warning', message: notice });

    const repairedEarlier = await repairedEarlierIds(options.dotDir, pre.considered);
    const scope: RunScope = { considered: pre.considered, notConsidered: pre.notConsidered, repairedEarlier };
    let agent = NO_AGENT_END;
    let pool: BuildPool | undefined;
    const end = (interruptExit: number | null, reason: Reason | null, refused?: boolean) => {
      notePlacement(context, pool);
      return finish(context, scope, interruptExit, reason, { agent, ...(refused && { refused }) });
    };
    try {
      // With no suggestion considered there is nothing to build; the summary says why.
      if (pre.considered.length === 0) return await end(null, null);
      // Before any build: a run must not spend its builds before learning its agent cannot start.
      const chosen = options.mode === 'discover-only' ? null : await chooseAgent(context, pre.ladder!);
      const resume = options.mode === 'discover-only' ? null : await prepareResume(context, pre, { repairedEarlier });
      pool = await openPool(context, pre.dp, (cleanup) => session.defer(cleanup));
      const { failing, held } = await discoveryStage(context, pre, pool, {
        reused: resume?.plan.builds,
        digests: resume?.digests ?? new Map(),
        repairedEarlier,
      });
      if (options.mode === 'discover-only') {
        for (const { suggestion, build } of failing)
          emitFinished(context, unrepairedRecord(suggestion, build, { status: 'failed', reason: null }));
      } else {
        const races = await raceCheckStage(context, {
          dp: pre.dp,
          pool,
          repairs: failing.length,
          held,
          considered: pre.considered,
        });
        const runCheck = await runCheckStage(context, {
          dp: pre.dp,
          pool,
          repairs: failing.length,
          held,
          considered: pre.considered,
          races,
        });
        if (failing.length > 0) {
          agent = await repairStage(context, failing, {
            dp: pre.dp,
            pool,
            agent: chosen,
            ladder: pre.ladder!,
            attempts: resume?.attempts ?? new Map(),
            runCheck,
            raceCheck: races.setup,
          });
          interrupt.check();
          if (agent.clusterFailed) throw agent.clusterFailed;
        }
      }
    } catch (error) {
      // A cancelled build rejects with the abort reason, not InterruptedError: both mean the run
      // was interrupted, and results.json must still say how far it got.
      if (interrupt.received) {
        const interrupted = new InterruptedError(interrupt.received);
        await end(interrupted.exitCode, EXIT_CODES[interrupted.signal].unfinished);
        throw interrupted;
      }
      // The cluster failed, not the builds: what finished is kept, the rest is not judged.
      if (error instanceof ClusterError) await end(error.exitCode, error.unfinished);
      // A refused run (the reference build fails, the OpenMP probe compiles) still leaves a
      // results.json that says why, for show and for tools; the refusal itself is the one line printed.
      else if (error instanceof RefusedError) await end(error.exitCode, EXIT_CODES.refused.unfinished, true);
      throw error;
    }
    return await end(null, null);
  } finally {
    await session.close();
  }
}
