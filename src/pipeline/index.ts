// preflight → discovery → (--check-run) reference runs → repair → write-back → summary (design.md, Pipeline). The stages beside
// this file do the work; this file only composes them and turns interrupts into exit codes.
import { ClusterError, InterruptedError, RefusedError } from '../errors.js';
import { trapSignals, type Interrupt } from '../interrupt.js';
import { createReporter, type Reporter } from '../report/reporter.js';
import { unrepairedRecord } from '../formats/run-records.js';
import type { RunOptions } from '../formats/run-options.js';
import { discoveryStage } from './discovery.js';
import { finish, runRecord } from './finish.js';
import { prepareResume, preflight, repairedEarlierIds } from './preflight.js';
import { chooseAgent, NO_AGENT_END, repairStage } from './repair.js';
import { runCheckStage } from './run-check.js';
import { restore } from './restore.js';
import { Session } from './session.js';
import { RunTally } from './tally.js';

/** Runs one invocation and returns its exit code. */
export async function run(options: RunOptions, stdout: NodeJS.WritableStream = process.stdout): Promise<number> {
  const interrupt = trapSignals();
  const reporter = createReporter({ stream: stdout });
  try {
    return options.mode === 'restore' ? await restore(options, reporter) : await pipeline(options, reporter, interrupt);
  } catch (error) {
    if (interrupt.signal.aborted) throw new InterruptedError(interrupt.received!);
    throw error;
  } finally {
    interrupt.release();
    reporter.close();
  }
}

async function pipeline(options: RunOptions, reporter: Reporter, interrupt: Interrupt): Promise<number> {
  const session = new Session(options, reporter, interrupt);
  try {
    await session.lock();
    const pre = await preflight(options);
    const context = await session.begin();
    const { emit } = context;
    emit({ type: 'run-started', run: runRecord(context, { identity: { backend: null, model: null }, resumedFrom: null, notConsidered: pre.notConsidered }) });
    for (const notice of [...pre.dp.notices, ...(pre.ladder?.warnings ?? [])]) emit({ type: 'notice', level: 'warning', message: notice });

    const tally = new RunTally(context, pre.considered, pre.notConsidered);
    let agent = NO_AGENT_END;
    try {
      // With no suggestion considered there is nothing to build; the summary says why.
      if (pre.considered.length === 0) return await finish(context, tally, null, null, { agent });
      // Before any build: a run must not spend its builds before learning its agent cannot start.
      const chosen = options.mode === 'discover-only' ? null : await chooseAgent(context, pre.ladder!);
      const repairedEarlier = await repairedEarlierIds(options.dotDir, pre.considered);
      tally.repairedEarlier = repairedEarlier;
      const resume = options.mode === 'discover-only' ? null : await prepareResume(context, pre, { repairedEarlier, keep: (record) => tally.finish(record) });
      if (resume) {
        tally.resumedFrom = resume.plan.from;
        await tally.startState(resume.writer, resume.plan.builds, resume.digests);
      }
      const { pool, failing } = await discoveryStage(context, pre, tally, { reused: resume?.plan.builds, repairedEarlier, defer: (cleanup) => session.defer(cleanup) });
      if (options.mode === 'discover-only') {
        for (const { suggestion, build } of failing) await tally.finish(unrepairedRecord(suggestion, build, { status: 'failed', reason: null }));
      } else {
        const runCheck = await runCheckStage(context, tally, { dp: pre.dp, pool, repairs: failing.length });
        if (failing.length > 0) {
          agent = await repairStage(context, tally, failing, { dp: pre.dp, pool, agent: chosen, ladder: pre.ladder!, tries: resume?.tries ?? new Map(), runCheck });
          interrupt.check();
          if (agent.clusterFailed) throw agent.clusterFailed;
        }
      }
    } catch (error) {
      // A cancelled build rejects with the abort reason, not InterruptedError: both mean the run
      // was interrupted, and results.json must still say how far it got.
      if (interrupt.received) {
        const interrupted = new InterruptedError(interrupt.received);
        await finish(context, tally, interrupted.exitCode, 'interrupted', { agent });
        throw interrupted;
      }
      // The cluster failed, not the builds: what finished is kept, the rest is not judged.
      if (error instanceof ClusterError) await finish(context, tally, error.exitCode, 'the cluster could not run its builds', { agent });
      // A refused run (the reference build fails, the OpenMP probe compiles) still leaves a
      // results.json that says why, for show and for tools; the refusal itself is the one line printed.
      else if (error instanceof RefusedError) await finish(context, tally, error.exitCode, 'not built: the run was refused', { agent, refused: true });
      throw error;
    }
    return await finish(context, tally, null, null, { agent });
  } finally {
    await session.close();
  }
}
