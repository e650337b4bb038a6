// The run's resources and its one event channel: the lock, the recovery of what a killed run left,
// the scratch folder, the history rotation, the event fan-out (progress.jsonl, funnel, log file,
// terminal, run-state.json, --progress-lines) and the launcher. Everything acquired here is
// released by close(), in reverse order, whatever ends the run.
import { randomBytes } from 'node:crypto';
import { cancelLeftJobs, createLauncher, type Launcher } from '../build/index.js';
import { faultPoint } from '../fault.js';
import type { Interrupt } from '../interrupt.js';
import { atLeast, createLogFile, levelOf } from '../log.js';
import { FunnelCounter } from '../report/funnel.js';
import { ProgressLines } from '../report/progress-lines.js';
import type { Reporter } from '../report/reporter.js';
import type { Emit, RunEvent } from '../formats/events.js';
import type { RunOptions } from '../formats/run-options.js';
import type { RunStateBase } from '../formats/run-fold.js';
import {
  acquireLock,
  cleanupStaleScratch,
  createRunScratch,
  openEventLog,
  recoverWriteBack,
  startRun,
  upgradeWrittenDigests,
} from '../store/index.js';
import type { RunInputs } from './inputs.js';
import { keepRunState } from './run-state.js';

/** What every stage of a started run shares: who it is, where it works, and where its events go. */
export interface RunContext {
  options: RunOptions;
  reporter: Reporter;
  interrupt: Interrupt;
  runId: string;
  started: string;
  scratchDir: string;
  emit: Emit;
  /** Writes events of the run --resume continues into this run's record, with their own times; the terminal does not show them again. */
  carry(events: readonly RunEvent[]): void;
  /** Counts the run's answers check by check from the events it emits. */
  funnel: FunnelCounter;
  /** Every event of the run so far, carried ones included: what its records are derived from. */
  events: readonly RunEvent[];
  /** Resolves once every subscriber has put what the events so far say on disk. */
  saved(): Promise<void>;
  launcher: Launcher;
  /** Where the previous run's files went (history/<its id>/); null when there was none. */
  previousDir: string | null;
}

/** A consumer of the run's events that keeps a file; `saved` resolves once it holds every event applied. */
export interface Subscriber {
  apply(event: RunEvent): void;
  saved(): Promise<void>;
}

export class Session {
  private readonly cleanups: (() => Promise<void>)[] = [];

  constructor(
    private readonly options: RunOptions,
    private readonly reporter: Reporter,
    private readonly interrupt: Interrupt,
  ) {}

  /** Takes the lock, then completes or undoes what a killed run left (write-backs, scratch, jobs). */
  async lock(): Promise<void> {
    const { options, reporter } = this;
    const lock = await acquireLock(options.dotDir);
    this.defer(() => lock.release());
    if (lock.notice) reporter.notice(lock.notice);
    faultPoint('pipeline.after-lock');
    for (const line of await recoverWriteBack(options.dotDir)) reporter.notice(line);
    for (const line of await upgradeWrittenDigests(options.dotDir)) reporter.notice(line);
    for (const line of await cleanupStaleScratch(options.dotDir, cancelLeftJobs)) reporter.notice(line);
    faultPoint('pipeline.after-recovery');
  }

  /**
   * Starts the run proper: its scratch folder, the previous run moved to history/, the event
   * channel and its subscribers. `inputs`: what the builds depend on; the run keeps a
   * run-state.json for --resume when it has them. `stdout` takes the --progress-lines.
   */
  async begin(o: { inputs: RunInputs | null; stdout: NodeJS.WritableStream }): Promise<RunContext> {
    const { options, reporter, interrupt } = this;
    const runId = newRunId();
    // Before the previous run is moved to history: an unusable --work-dir is bad input, not a run.
    const scratch = await createRunScratch({
      dotDir: options.dotDir,
      workDir: options.workDir,
      runId,
      launcher: options.launcher,
    });
    this.defer(() => scratch.dispose());
    const rotated = await startRun(options.dotDir, runId);
    faultPoint('pipeline.after-history');
    const log = openEventLog(options.dotDir);
    this.defer(() => log.close());
    const funnel = new FunnelCounter({
      strict: options.strict,
      writes: options.mode === 'repair',
      checkRun: options.checkRun !== 'off',
    });
    const { events, subscribers, emit, carry, saved } = eventChannel(options, reporter, [
      (event) => log.emit(event),
      (event) => funnel.apply(event),
      ...(options.writeLog ? [createLogFile({ dotDir: options.dotDir, threshold: options.log })] : []),
    ]);
    faultPoint('pipeline.after-scratch');
    const launcher = createLauncher({ name: options.launcher, args: options.launcherArgs, runId });
    // Whatever ends the run, no job it submitted stays queued or running.
    this.defer(() => launcher.cancelAll((message) => emit({ type: 'notice', level: 'warning', message })));
    const started = new Date().toISOString();
    const context: RunContext = {
      options,
      reporter,
      interrupt,
      runId,
      started,
      scratchDir: scratch.dir,
      emit,
      carry,
      funnel,
      events,
      saved,
      launcher,
      previousDir: rotated.dir,
    };
    subscribers.push(...ownSubscribers(options, { ...o, runId, events }));
    return context;
  }

  /** Registers a release; releases run in reverse order of registration. */
  defer(cleanup: () => Promise<void>): void {
    this.cleanups.unshift(cleanup);
  }

  async close(): Promise<void> {
    for (const cleanup of this.cleanups.splice(0)) await cleanup();
  }
}

/**
 * The run's one event channel: every event, emitted or carried over, is kept and goes to each
 * consumer and subscriber; an emitted one also goes to the terminal, a notice only at its level.
 * `saved` resolves once every subscriber has its file on disk.
 */
function eventChannel(options: RunOptions, reporter: Reporter, consumers: readonly ((event: RunEvent) => void)[]) {
  const events: RunEvent[] = [];
  const subscribers: Subscriber[] = [];
  const record = (event: RunEvent) => {
    events.push(event);
    for (const consume of consumers) consume(event);
    for (const subscriber of subscribers) subscriber.apply(event);
  };
  const emit: Emit = (input) => {
    const event = { t: new Date().toISOString(), ...input } as RunEvent;
    record(event);
    if (event.type !== 'notice' || atLeast(levelOf(event), options.log)) reporter.handle(event);
  };
  const carry = (carried: readonly RunEvent[]) => carried.forEach(record);
  const saved = async () => {
    for (const subscriber of subscribers) await subscriber.saved();
  };
  return { events, subscribers, emit, carry, saved };
}

/**
 * The subscribers every run of these options has: the --progress-lines, and run-state.json when
 * the run has the build inputs it records (a repair or dry run).
 */
function ownSubscribers(
  options: RunOptions,
  o: { inputs: RunInputs | null; stdout: NodeJS.WritableStream; runId: string; events: readonly RunEvent[] },
): Subscriber[] {
  const subscribers: Subscriber[] = [];
  // DiscoPoP's tab follows the run through these lines. Each is one write, so a line is never
  // split by the live lines, which that tab reads merged into the same pipe.
  if (options.progressLines) {
    const lines = new ProgressLines((line) => o.stdout.write(`${line}\n`));
    subscribers.push({ apply: (event) => lines.apply(event), saved: async () => {} });
  }
  if (o.inputs) {
    const { tree, environment, outputs } = o.inputs;
    const mode: RunStateBase['mode'] = options.mode === 'dry-run' ? 'dry-run' : 'repair';
    const base = { version: 2 as const, run_id: o.runId, mode, tree, environment, outputs: [...outputs] };
    subscribers.push(keepRunState({ dotDir: options.dotDir, events: o.events }, base));
  }
  return subscribers;
}

function newRunId(): string {
  return `${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}-${randomBytes(3).toString('hex')}`;
}
