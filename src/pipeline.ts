// preflight → discovery → repair → write-back → summary (design.md, Pipeline). The stages do the
// work; this file only wires them, owns the run's resources and turns interrupts into exit codes.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createAgent } from './agent/create.js';
import type { Agent } from './agent/types.js';
import { BuildPool, buildInputsDigest, cancelLeftJobs, createLauncher, discover, generatedPatchSet, placeProbe, preprocessPatched, probeRefusal, runOpenmpProbe, suggestionBuildDigest, type WorkspacePlacement } from './build/index.js';
import { readDotDiscopop, refuseIfApplied, selectSuggestions } from './discopop/index.js';
import { readApplied } from './discopop/applied.js';
import { Problems } from './discopop/problems.js';
import { decodeBytes } from './bytes.js';
import { ClusterError, InterruptedError, RefusedError } from './errors.js';
import { faultPoint } from './fault.js';
import { trapSignals, type Interrupt } from './interrupt.js';
import { atLeast, createLogFile, levelOf } from './log.js';
import { applyFilePatch, parsePatches } from './patch/index.js';
import { loadPromptLadder, repairConcurrently, repairSuggestion, RunBudget, type PromptLadder, type RepairDeps } from './repair/index.js';
import { planResume, priorTry, type ResumePlan } from './repair/resume.js';
import type { PriorTry, RepairOutcome } from './formats/outcome.js';
import type { RepairTask } from './formats/task.js';
import { createReporter, type Reporter } from './report/reporter.js';
import { FunnelCounter } from './report/funnel.js';
import { renderSummary } from './report/summary.js';
import type { RunOptions } from './formats/run-options.js';
import {
  buildsRecord,
  countStatuses,
  exitCodeFor,
  isFinal,
  MAX_REPAIRS_REASON,
  noPatchRecord,
  outcomeRecord,
  unrepairedRecord,
  usageTotals,
  type AgentIdentity,
} from './formats/run-records.js';
import {
  acquireLock,
  AttemptStore,
  cleanupStaleScratch,
  copyAttempts,
  createRunScratch,
  digestDir,
  openEventLog,
  readAttemptsIn,
  readRunState,
  recoverWriteBack,
  restoreAll,
  RunStateWriter,
  startRun,
  listBackups,
  unwritableSuggestionFolders,
  writeBack,
  WriteBackFailed,
  writeResults,
} from './store/index.js';
import { readWrittenDigest } from './store/backup.js';
import type { Emit, RunEvent } from './formats/events.js';
import type { OpenmpProbe, ResultsFile, RunRecord, SuggestionRecord } from './formats/results.js';
import type { RunState } from './formats/resume-state.js';
import type { BuildResult, DotDiscopop, Suggestion } from './formats/types.js';

/** Runs one invocation and returns its exit code. */
export async function run(options: RunOptions, stdout: NodeJS.WritableStream = process.stdout): Promise<number> {
  const interrupt = trapSignals();
  const reporter = createReporter({ stream: stdout });
  try {
    return options.mode === 'restore'
      ? await restore(options, reporter)
      : await pipeline(options, reporter, interrupt);
  } catch (error) {
    if (interrupt.signal.aborted) throw new InterruptedError(interrupt.received!);
    throw error;
  } finally {
    interrupt.release();
    reporter.close();
  }
}

async function restore(options: RunOptions, reporter: Reporter): Promise<number> {
  const lock = await acquireLock(options.dotDir);
  try {
    if (lock.notice) reporter.notice(lock.notice);
    const problems = new Problems();
    const applied = await readApplied({ dotDir: options.dotDir, problems });
    problems.throwIfAny();
    refuseIfApplied({ dotDir: options.dotDir, applied });
    const unwritable = await unwritableSuggestionFolders(options.dotDir, await listBackups(options.dotDir));
    if (unwritable.length > 0) throw new RefusedError([...unwritable, 'their backups cannot be put back there; make the folders writable and run --restore again'].join('\n'));
    const summary = await restoreAll(options.dotDir);
    reporter.print(summary.line);
    return 0;
  } finally {
    await lock.release();
  }
}

interface RunContext {
  options: RunOptions;
  dp: DotDiscopop;
  emit: Emit;
  reporter: Reporter;
  interrupt: Interrupt;
  runId: string;
  started: string;
  scratchDir: string;
  /** The run this one continues (--resume), once known. */
  resumedFrom: string | null;
  /** Counts the run's answers check by check from the events it emits. */
  funnel: FunnelCounter;
}

async function pipeline(options: RunOptions, reporter: Reporter, interrupt: Interrupt): Promise<number> {
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const lock = await acquireLock(options.dotDir);
    cleanups.unshift(() => lock.release());
    if (lock.notice) reporter.notice(lock.notice);
    faultPoint('pipeline.after-lock');
    for (const line of await recoverWriteBack(options.dotDir)) reporter.notice(line);
    for (const line of await cleanupStaleScratch(options.dotDir, cancelLeftJobs)) reporter.notice(line);
    faultPoint('pipeline.after-recovery');

    const dp = await readDotDiscopop(options.dotDir, options.config, options.projectRoot);
    refuseIfApplied(dp);
    const considered = selectSuggestions(dp, { hotspotTypes: options.hotspotTypes, suggestions: options.suggestions });
    if (options.mode === 'repair') await refuseUnwritable(options.dotDir, considered);
    // A broken --prompt-dir must stop the run before any build spends minutes.
    const ladder = options.mode === 'discover-only' ? null : await loadPromptLadder(options.promptDir);

    // Read before the rotation moves it to history/: only the most recent run can be resumed.
    const previousState = options.resume ? await readRunState(options.dotDir) : null;
    const runId = newRunId();
    // Before the previous run is moved to history: an unusable --work-dir is bad input, not a run.
    const scratch = await createRunScratch({ dotDir: options.dotDir, workDir: options.workDir, runId, launcher: options.launcher });
    cleanups.unshift(() => scratch.dispose());
    const rotated = await startRun(options.dotDir, runId);
    faultPoint('pipeline.after-history');
    const log = openEventLog(options.dotDir);
    cleanups.unshift(() => log.close());
    const logFile = options.writeLog ? createLogFile({ dotDir: options.dotDir, threshold: options.log }) : null;
    const funnel = new FunnelCounter({ strict: options.strict, writes: options.mode === 'repair' });
    const emit: Emit = (input) => {
      log.emit(input);
      const event = { t: new Date().toISOString(), ...input } as RunEvent;
      funnel.apply(event);
      logFile?.(event);
      if (event.type !== 'notice' || atLeast(levelOf(event), options.log)) reporter.handle(event);
    };
    faultPoint('pipeline.after-scratch');
    const launcher = createLauncher({ name: options.launcher, args: options.launcherArgs, runId });
    // Whatever ends the run, no job it submitted stays queued or running.
    cleanups.unshift(() => launcher.cancelAll());
    const context: RunContext = { options, dp, emit, reporter, interrupt, runId, started: new Date().toISOString(), scratchDir: scratch.dir, funnel, resumedFrom: null };
    emit({ type: 'run-started', run: runRecord(context, { backend: null, model: null }) });
    for (const notice of dp.notices) emit({ type: 'notice', level: 'warning', message: notice });

    const tally = new RunTally(context, considered);
    let pool: BuildPool | undefined;
    tally.placement = () => pool?.workspacePlacement;
    try {
      await launcher.preflight({ scratchDir: scratch.dir, workDir: options.workDir, signal: interrupt.signal });
      pool = await BuildPool.create({
        dp,
        scratchDir: scratch.dir,
        jobs: options.jobs,
        threads: options.threads,
        timeoutMs: options.buildTimeoutS * 1000,
        signal: interrupt.signal,
        emit,
        exclude: options.exclude,
        launcher,
      });
      const created = pool;
      cleanups.unshift(() => created.dispose());
      const repairedEarlier = await repairedEarlierIds(options.dotDir, considered);
      const resume = options.mode === 'discover-only' ? null : await prepareResume(context, tally, { considered, previousState, previousDir: rotated.dir, repairedEarlier });
      if (resume) await tally.startState(resume.writer, resume.plan.builds, resume.digests);
      // The probe is queued first and runs beside the first discovery builds; when it refuses,
      // disposing the pool cancels those, and their rejection is expected. With nothing to build
      // there is nothing the probe could protect. A resumed run probes again: the probe is one build.
      const toBuild = considered.some((s) => s.files.length > 0);
      const probing = toBuild ? runOpenmpProbe({ dp, placement: await placeProbe(considered), pool, emit }) : Promise.resolve(null);
      const discovering = discover({
        dp,
        considered: considered.filter((s) => !tally.records.has(s.id)),
        pool,
        emit,
        reused: resume?.plan.builds,
        onBuilt: (id, build) => tally.noteBuild(id, build),
      });
      discovering.catch(() => undefined);
      tally.probe = await probing;
      if (tally.probe?.status === 'compiled') throw new RefusedError(probeRefusal(dp, tally.probe));
      const discovery = await discovering;
      interrupt.check();
      faultPoint('pipeline.after-discovery');
      const failing = await tally.recordDiscovery(discovery.builds, repairedEarlier);
      if (options.mode === 'discover-only') {
        for (const { suggestion, build } of failing) await tally.finish(unrepairedRecord(suggestion, build, { status: 'failed', reason: null }));
      } else if (failing.length > 0) {
        await repairAll(context, tally, failing, { pool, ladder: ladder!, continued: resume?.plan.continued ?? new Map() });
      }
    } catch (error) {
      // A cancelled build rejects with the abort reason, not InterruptedError: both mean the run
      // was interrupted, and results.json must still say how far it got.
      if (interrupt.received) {
        const interrupted = new InterruptedError(interrupt.received);
        await tally.conclude(interrupted.exitCode, 'interrupted');
        throw interrupted;
      }
      // The cluster failed, not the builds: what finished is kept, the rest is not judged.
      if (error instanceof ClusterError) await tally.conclude(error.exitCode, 'the cluster could not run its builds');
      // A refused run (the reference build fails, the OpenMP probe compiles) still leaves a
      // results.json that says why, for show and for tools; the refusal itself is the one line printed.
      else if (error instanceof RefusedError) await tally.conclude(error.exitCode, 'not built: the run was refused', { refused: true });
      throw error;
    }
    return await tally.conclude(null, null);
  } finally {
    for (const cleanup of cleanups) await cleanup();
  }
}

interface Failing {
  suggestion: Suggestion;
  build: BuildResult;
}

/**
 * Works out what this run takes over from the one it resumes (records, tries, discovery builds)
 * and opens the run's own run-state.json. Kept records are finished at once, tries copied over.
 */
async function prepareResume(
  context: RunContext,
  tally: RunTally,
  o: { considered: Suggestion[]; previousState: RunState | null; previousDir: string | null; repairedEarlier: Set<string> },
): Promise<{ plan: ResumePlan; writer: RunStateWriter; digests: Map<string, string> }> {
  const { options, dp, emit, reporter } = context;
  const mode = options.mode === 'dry-run' ? 'dry-run' : 'repair';
  const inputs = await buildInputsDigest(dp, { threads: options.threads, exclude: options.exclude, signal: context.interrupt.signal });
  const digests = new Map<string, string>();
  for (const s of o.considered) if (s.files.length > 0) digests.set(s.id, suggestionBuildDigest(inputs, await digestDir(s.dir)));
  const plan: ResumePlan = options.resume
    ? planResume({ previous: o.previousState, previousDir: o.previousDir, mode, inputs, digests, writtenByRepair: o.repairedEarlier })
    : { from: null, notice: '', builds: new Map(), kept: new Map(), continued: new Map() };
  if (options.resume) {
    // Always said: at --log INFO and below the event itself is printed, above it the reporter says it.
    emit({ type: 'notice', level: 'info', message: plan.notice });
    if (!atLeast('INFO', options.log)) reporter.notice(plan.notice);
  }
  context.resumedFrom = plan.from;
  for (const [id, record] of plan.kept) {
    const folder = path.join(o.previousDir!, 'attempts', id);
    await copyAttempts(folder, options.dotDir, id, (await readAttemptsIn(folder)).map((a) => a.attempt));
    await tally.finish(record);
  }
  const writer = new RunStateWriter(options.dotDir, { version: 1, run_id: context.runId, mode, inputs, builds: {}, finished: {}, complete: false });
  return { plan, writer, digests };
}

/** The tries a continued suggestion already made, copied into this run's attempts/<id>/. */
async function continuedTries(dotDir: string, id: string, folder: string | undefined): Promise<PriorTry[]> {
  if (folder === undefined) return [];
  const tries: PriorTry[] = [];
  for (const stored of await readAttemptsIn(folder)) {
    const prior = priorTry(stored);
    // Numbers stay contiguous: a folder the kill left before any answer arrived is not carried over.
    if (!prior || prior.attempt !== tries.length + 1) break;
    tries.push(prior);
  }
  await copyAttempts(folder, dotDir, id, tries.map((t) => t.attempt));
  return tries;
}

async function repairAll(context: RunContext, tally: RunTally, failing: Failing[], o: { pool: BuildPool; ladder: PromptLadder; continued: Map<string, string> }): Promise<void> {
  const { options, dp, emit, interrupt } = context;
  const agent = await chooseAgent(context, o.ladder);
  // With no agent the built-in repairer is the whole repair stage, and the run record says so.
  tally.identity = { backend: agent?.backend ?? (options.builtin ? 'builtin' : null), model: agent?.model ?? null };
  const deps: RepairDeps = {
    dp,
    options,
    pool: o.pool,
    agent,
    emit,
    attempts: new AttemptStore(options.dotDir),
    signal: interrupt.signal,
    budget: tally.budget,
    scratchDir: context.scratchDir,
    ladder: o.ladder,
  };
  // Why writes stopped, once a write-back failed in a way every later one would (the folder cannot be written).
  let writesStopped: string | null = null;
  let settled = 0;
  await repairConcurrently({
    items: failing,
    jobs: options.agentJobs,
    maxRepairs: options.maxRepairs,
    signal: interrupt.signal,
    halted: () => writesStopped !== null,
    repair: async ({ suggestion, build }, index) => {
      emit({ type: 'repair-started', id: suggestion.id, index: index + 1, total: failing.length });
      faultPoint('pipeline.before-repair');
      const prior = await continuedTries(options.dotDir, suggestion.id, o.continued.get(suggestion.id));
      return repairSuggestion(await repairTask(suggestion, dp, build), deps, prior);
    },
    settle: async ({ suggestion, build }, outcome) => {
      faultPoint('pipeline.after-repair');
      settled += 1;
      const record = outcomeRecord(suggestion, build, outcome, { ...tally.identity, dryRun: options.mode === 'dry-run' });
      if (outcome.status === 'repaired' && options.mode === 'repair') {
        if (writesStopped === null) writesStopped = await writeRepair(context, suggestion, outcome, record, failing.length - settled);
        else {
          record.status = 'not_applied';
          record.reason = `verified repair not written: ${writesStopped}, and every later write-back would fail the same way; the repair is in attempts/${suggestion.id}/${outcome.acceptedAttempt}/canonical/`;
        }
      }
      await tally.finish(record);
    },
    skip: ({ suggestion, build }) =>
      tally.finish(
        unrepairedRecord(suggestion, build, {
          status: 'skipped',
          reason: writesStopped !== null ? `not repaired: ${writesStopped}` : `${MAX_REPAIRS_REASON} (${options.maxRepairs})`,
        }),
      ),
  });
  interrupt.check();
}

/** The records of one run as they come in, and the results.json they end in. */
class RunTally {
  readonly records = new Map<string, SuggestionRecord>();
  readonly budget: RunBudget;
  identity: AgentIdentity = { backend: null, model: null };
  placement: () => WorkspacePlacement | undefined = () => undefined;
  probe: OpenmpProbe | null = null;
  private readonly builds = new Map<string, BuildResult>();

  constructor(
    private readonly context: RunContext,
    private readonly considered: Suggestion[],
  ) {
    this.budget = new RunBudget({ maxCostUsd: context.options.agent.maxCostUsd });
  }

  /** The run's run-state.json; null for --discover-only, which cannot be resumed. */
  private state: RunStateWriter | null = null;

  async finish(record: SuggestionRecord): Promise<void> {
    this.records.set(record.id, record);
    this.context.emit({ type: 'suggestion-finished', record });
    // What discovery settles is settled again by the next discovery; only repair outcomes are kept.
    if (this.state && isFinal(record) && record.status !== 'ok' && record.reason !== 'no patch') {
      this.state.state.finished[record.id] = record;
      await this.state.save();
    }
  }

  private digests = new Map<string, string>();

  /** Starts the run's own run-state.json with the builds it took over and the records it kept. */
  async startState(writer: RunStateWriter, builds: ReadonlyMap<string, BuildResult>, digests: Map<string, string>): Promise<void> {
    this.digests = digests;
    this.state = writer;
    for (const record of this.records.values()) if (isFinal(record) && record.status !== 'ok') writer.state.finished[record.id] = record;
    for (const [id, build] of builds) await this.noteBuild(id, build);
    await writer.save();
  }

  /** A discovery build, recorded as soon as it finished with the digest of what it depended on. */
  async noteBuild(id: string, build: BuildResult): Promise<void> {
    const digest = this.digests.get(id);
    if (!this.state || digest === undefined) return;
    this.state.state.builds[id] = { digest, build };
    await this.state.save();
  }

  /** Records what discovery settles (no patch, builds) and returns the failing suggestions. */
  async recordDiscovery(builds: Map<string, BuildResult>, repairedEarlier: Set<string>): Promise<Failing[]> {
    const failing: Failing[] = [];
    for (const suggestion of this.considered) {
      if (this.records.has(suggestion.id)) continue;
      const build = builds.get(suggestion.id);
      if (build) this.builds.set(suggestion.id, build);
      if (!build) await this.finish(noPatchRecord(suggestion));
      else if (build.ok) await this.finish(buildsRecord(suggestion, repairedEarlier.has(suggestion.id)));
      else failing.push({ suggestion, build });
    }
    return failing;
  }

  /**
   * Writes results.json and prints the summary. An interrupted run records every suggestion it
   * did not finish as skipped, so results.json always has one record per considered suggestion.
   */
  async conclude(interruptExit: number | null, unfinishedReason: string | null, o: { refused: boolean } = { refused: false }): Promise<number> {
    const { options, emit, reporter } = this.context;
    const suggestions = this.considered.map((suggestion) => {
      const known = this.records.get(suggestion.id);
      if (known) return known;
      const record = unrepairedRecord(suggestion, this.builds.get(suggestion.id) ?? null, { status: 'skipped', reason: unfinishedReason });
      // Nothing of a refused run's suggestions is under way: each is settled, and show lists it so.
      if (o.refused) this.finish(record);
      return record;
    });
    const results: ResultsFile = { version: 1, run: { ...runRecord(this.context, this.identity, this.placement()), openmp_probe: this.probe }, suggestions };
    const exitCode = interruptExit ?? exitCodeFor(results, { fatalAgentError: this.budget.fatal !== null });
    results.run = {
      ...results.run,
      finished: new Date().toISOString(),
      counts: countStatuses(suggestions),
      endpoint_down: this.budget.endpointDown,
      ...usageTotals(suggestions),
      funnel: this.context.funnel.result(),
      exit_code: exitCode,
    };
    if (this.state) {
      this.state.state.complete = interruptExit === null && suggestions.every(isFinal);
      await this.state.save();
    }
    faultPoint('pipeline.before-results');
    await writeResults(options.dotDir, results);
    faultPoint('pipeline.after-results');
    emit({ type: 'run-finished', run: results.run });
    if (!o.refused) reporter.print(`\n${renderSummary(results)}`);
    return exitCode;
  }
}

async function chooseAgent(context: RunContext, ladder: PromptLadder): Promise<Agent | null> {
  const { options, emit } = context;
  const { agent, notice } = await createAgent({ settings: options.agent, scratchDir: context.scratchDir, systemPrompt: ladder.system });
  // options.md: the run names the agent it picked before its first call, at the default log level.
  if (notice) emit({ type: 'agent-picked', message: notice });
  if (!agent && !options.builtin) emit({ type: 'notice', level: 'warning', message: 'no agent and --no-builtin: failing suggestions cannot be repaired' });
  return agent;
}

/**
 * Writes a verified repair back. One that cannot be written has been undone by writeBack; the
 * record becomes not_applied with the reason, and the run goes on unless the cause (a read-only
 * or full file system) would stop every later write-back too: then it returns the reason the
 * remaining suggestions are skipped for, so no agent time is spent on repairs that cannot land.
 */
async function writeRepair(
  context: RunContext,
  suggestion: Suggestion,
  outcome: Extract<RepairOutcome, { status: 'repaired' }>,
  record: SuggestionRecord,
  remaining: number,
): Promise<string | null> {
  faultPoint('pipeline.before-write-back');
  let written;
  try {
    written = await writeBack(context.options.dotDir, suggestion, outcome.canonical);
  } catch (error) {
    if (!(error instanceof WriteBackFailed)) throw error;
    record.status = 'not_applied';
    record.reason = `verified repair not written: ${error.message}; patch_generator/${suggestion.id}/ is unchanged, the repair is in attempts/${suggestion.id}/${outcome.acceptedAttempt}/canonical/`;
    const stop = error.affectsEveryWrite && remaining > 0;
    const next = stop
      ? `the run stops repairing: every later write-back would fail the same way, so none of the remaining ${remaining} suggestion(s) is written`
      : remaining > 0 ? 'the run goes on with the other suggestions' : 'no suggestion is left to repair';
    context.emit({ type: 'notice', level: 'error', message: `suggestion ${suggestion.id}: ${record.reason}; ${next}` });
    return stop ? `the write-back of suggestion ${suggestion.id} failed (${error.message})` : null;
  }
  record.changed_files = written.changedFiles.length > 0 ? written.changedFiles : record.changed_files;
  context.emit({ type: 'written', id: suggestion.id, files: written.changedFiles, digest: written.digest });
  faultPoint('pipeline.after-write-back');
  return null;
}

async function refuseUnwritable(dotDir: string, considered: readonly Suggestion[]): Promise<void> {
  const lines = await unwritableSuggestionFolders(dotDir, considered.filter((s) => s.files.length > 0).map((s) => s.id));
  if (lines.length === 0) return;
  throw new RefusedError(
    [...lines, 'a verified repair could not be written back there; make the folders writable, or repair without writing with --dry-run'].join('\n'),
  );
}

/** What the repair works on: the original sources, the generated patches and their result. */
async function repairTask(suggestion: Suggestion, dp: DotDiscopop, build: BuildResult): Promise<RepairTask> {
  const sources = new Map<string, string>();
  const patched = new Map<string, string>();
  for (const file of suggestion.files) {
    const source = decodeBytes(await readFile(dp.files.get(file.fileId)!.path));
    sources.set(file.fileId, source);
    // A generated patch that does not apply leaves the file as it is; the diagnostics say why.
    const [patch] = parsePatches(file.text).patches;
    const applied = patch ? applyFilePatch(source, patch) : null;
    patched.set(file.fileId, applied?.ok && applied.result !== null ? applied.result : source);
  }
  // The built-in repairer reads what the compiler compiles: macros, headers, typedefs expanded.
  const translationUnits = new Map<string, string>();
  const translationUnitsMissing = new Map<string, string>();
  if (!build.ok) {
    for (const file of suggestion.files) {
      const preprocessed = await preprocessPatched({ dp, source: dp.files.get(file.fileId)!, patched: patched.get(file.fileId)! });
      if (preprocessed.ok) translationUnits.set(file.fileId, preprocessed.text);
      else translationUnitsMissing.set(file.fileId, preprocessed.reason);
    }
  }
  return { suggestion, sources, generated: generatedPatchSet(suggestion) as Map<string, string>, patched, build, translationUnits, translationUnitsMissing };
}

/** Suggestions whose patches are what an earlier repair wrote (backups/<id>.written matches). */
async function repairedEarlierIds(dotDir: string, considered: Suggestion[]): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const { id, dir } of considered) {
    const written = await readWrittenDigest(dotDir, id);
    if (written !== null && written === (await digestDir(dir))) ids.add(id);
  }
  return ids;
}

/** At most this many path-holding outputs are named in results.json; the count says how many there are. */
const RECORDED_PATH_FILES = 10;

function runRecord(context: RunContext, identity: AgentIdentity, placement?: WorkspacePlacement): RunRecord {
  const { options } = context;
  const workspaces = placement && {
    count: placement.workspaces,
    reference_outputs: placement.outputs,
    reference_builds: placement.referenceBuilds,
    path_files: placement.pathFiles.slice(0, RECORDED_PATH_FILES),
    path_file_count: placement.pathFiles.length,
  };
  return {
    id: context.runId,
    started: context.started,
    finished: null,
    mode: options.mode === 'restore' ? 'repair' : options.mode,
    dot_discopop: options.dotDir,
    config: options.config,
    backend: identity.backend,
    model: identity.model,
    options: recordedOptions(options),
    counts: { ok: 0, repaired: 0, failed: 0, not_applied: 0, agent_unreachable: 0, skipped: 0 },
    endpoint_down: false,
    cost_usd: null,
    input_tokens: null,
    output_tokens: null,
    funnel: [],
    exit_code: null,
    resumed_from: context.resumedFrom,
    openmp_probe: null,
    ...(workspaces && { workspaces }),
  };
}

function recordedOptions(options: RunOptions): Record<string, unknown> {
  const { agent, ...rest } = options;
  return { ...rest, agent: { ...agent } };
}

function newRunId(): string {
  return `${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}-${randomBytes(3).toString('hex')}`;
}

