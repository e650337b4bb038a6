// preflight → discovery → repair → write-back → summary (design.md, Pipeline). The stages do the
// work; this file only wires them, owns the run's resources and turns interrupts into exit codes.
import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { createAgent } from './agent/create.js';
import type { Agent } from './agent/types.js';
import { BuildPool, discover, generatedPatchSet } from './build/index.js';
import { readDotDiscopop, refuseIfApplied, selectSuggestions } from './discopop/index.js';
import { readApplied } from './discopop/applied.js';
import { Problems } from './discopop/problems.js';
import { InterruptedError } from './errors.js';
import { faultPoint } from './fault.js';
import { applyFilePatch, parsePatches } from './patch/index.js';
import { killAllProcessGroups } from './process.js';
import { loadPromptLadder, repairSuggestion, RunBudget, type PromptLadder, type RepairOutcome, type RepairTask } from './repair/index.js';
import { createReporter, type Reporter } from './report/reporter.js';
import { renderSummary } from './report/summary.js';
import type { RunOptions } from './run-options.js';
import {
  buildsRecord,
  countStatuses,
  exitCodeFor,
  MAX_REPAIRS_REASON,
  noPatchRecord,
  outcomeRecord,
  unrepairedRecord,
  type AgentIdentity,
} from './run-records.js';
import {
  acquireLock,
  AttemptStore,
  cleanupStaleScratch,
  createRunScratch,
  digestDir,
  openEventLog,
  recoverWriteBack,
  restoreAll,
  startRun,
  writeBack,
  writeResults,
} from './store/index.js';
import { readWrittenDigest } from './store/backup.js';
import type { Emit, RunEvent } from './store/events.js';
import type { ResultsFile, RunRecord, SuggestionRecord } from './store/results.js';
import type { BuildResult, DotDiscopop, Suggestion } from './types.js';

export interface RunIo {
  stdout: NodeJS.WritableStream;
  /** Added to agent CLI environments (tests point them at a loopback provider). */
  agentEnv?: Readonly<Record<string, string>>;
}

/** Runs one invocation and returns its exit code. */
export async function run(options: RunOptions, io: RunIo = { stdout: process.stdout }): Promise<number> {
  const interrupt = trapSignals();
  const reporter = createReporter({ stream: io.stdout });
  try {
    return options.mode === 'restore'
      ? await restore(options, reporter)
      : await pipeline(options, reporter, interrupt, io);
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
    const summary = await restoreAll(options.dotDir);
    reporter.print(summary.line);
    return 0;
  } finally {
    await lock.release();
  }
}

interface Interrupt {
  signal: AbortSignal;
  received: 'SIGINT' | 'SIGTERM' | undefined;
  /** Throws InterruptedError once a signal arrived; called between steps. */
  check(): void;
  release(): void;
}

/**
 * The first SIGINT/SIGTERM cancels running builds and agent calls (their process groups are
 * killed) and lets the run clean up; a second one ends the process at once.
 */
function trapSignals(): Interrupt {
  const controller = new AbortController();
  const state: Interrupt = {
    signal: controller.signal,
    received: undefined,
    check() {
      if (state.received) throw new InterruptedError(state.received);
    },
    release() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    if (state.received) {
      killAllProcessGroups();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    state.received = signal;
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return state;
}

interface RunContext {
  options: RunOptions;
  dp: DotDiscopop;
  emit: Emit;
  reporter: Reporter;
  interrupt: Interrupt;
  runId: string;
  started: string;
}

async function pipeline(options: RunOptions, reporter: Reporter, interrupt: Interrupt, io: RunIo): Promise<number> {
  const lock = await acquireLock(options.dotDir);
  const cleanups: (() => Promise<void>)[] = [() => lock.release()];
  try {
    if (lock.notice) reporter.notice(lock.notice);
    for (const line of await recoverWriteBack(options.dotDir)) reporter.notice(`finished an interrupted write-back: ${line}`);
    for (const line of await cleanupStaleScratch(options.dotDir)) reporter.notice(line);

    const dp = await readDotDiscopop(options.dotDir, options.config);
    refuseIfApplied(dp);
    const considered = selectSuggestions(dp, { hotspotTypes: options.hotspotTypes, suggestions: options.suggestions });
    // A broken --prompt-dir must stop the run before any build spends minutes.
    const ladder = options.mode === 'repair' || options.mode === 'dry-run' ? await loadPromptLadder(options.promptDir) : null;

    const runId = newRunId();
    await startRun(options.dotDir, runId);
    const log = openEventLog(options.dotDir);
    cleanups.unshift(() => log.close());
    const emit: Emit = (input) => {
      log.emit(input);
      reporter.handle({ t: new Date().toISOString(), ...input } as RunEvent);
    };
    for (const notice of dp.notices) emit({ type: 'notice', level: 'warning', message: notice });

    const scratch = await createRunScratch({ dotDir: options.dotDir, workDir: options.workDir, runId });
    cleanups.unshift(() => scratch.dispose());
    const context: RunContext = { options, dp, emit, reporter, interrupt, runId, started: new Date().toISOString() };
    const run = runRecord(context, { backend: null, model: null });
    emit({ type: 'run-started', run });

    const pool = await BuildPool.create({
      dp,
      scratchDir: scratch.dir,
      jobs: options.jobs,
      threads: options.threads,
      timeoutMs: options.buildTimeoutS * 1000,
      signal: interrupt.signal,
      emit,
    });
    cleanups.unshift(() => pool.dispose());
    const discovery = await discover({ dp, considered, pool, emit });
    interrupt.check();
    faultPoint('after-discovery');

    const records = new Map<string, SuggestionRecord>();
    const failing: Suggestion[] = [];
    for (const suggestion of considered) {
      const build = discovery.builds.get(suggestion.id);
      if (!build) records.set(suggestion.id, noPatchRecord(suggestion));
      else if (build.ok) records.set(suggestion.id, buildsRecord(suggestion, await repairedEarlier(options.dotDir, suggestion.id)));
      else failing.push(suggestion);
    }

    let identity: AgentIdentity = { backend: null, model: null };
    let fatalAgentError = false;
    let endpointDown = false;
    let costUsd = 0;
    if (options.mode === 'discover-only' || failing.length === 0) {
      for (const suggestion of failing) {
        records.set(suggestion.id, unrepairedRecord(suggestion, discovery.builds.get(suggestion.id)!, { status: 'failed', reason: null }));
      }
    } else {
      const agent = await chooseAgent(context, ladder!, scratch.dir, io);
      identity = { backend: agent?.backend ?? null, model: agent?.model ?? null };
      const budget = new RunBudget({ maxCostUsd: options.agent.maxCostUsd });
      const deps = {
        dp,
        options,
        pool,
        agent,
        emit,
        attempts: new AttemptStore(options.dotDir),
        signal: interrupt.signal,
        budget,
        scratchDir: scratch.dir,
        ladder: ladder!,
      };
      let repaired = 0;
      for (const [index, suggestion] of failing.entries()) {
        const build = discovery.builds.get(suggestion.id)!;
        if (options.maxRepairs > 0 && repaired >= options.maxRepairs) {
          records.set(suggestion.id, unrepairedRecord(suggestion, build, { status: 'skipped', reason: `${MAX_REPAIRS_REASON} (${options.maxRepairs})` }));
          continue;
        }
        emit({ type: 'repair-started', id: suggestion.id, index: index + 1, total: failing.length });
        const outcome = await repairSuggestion(await repairTask(suggestion, dp, build), deps);
        interrupt.check();
        const record = outcomeRecord(suggestion, build, outcome, { ...identity, dryRun: options.mode === 'dry-run' });
        if (outcome.status === 'repaired') {
          repaired += 1;
          if (options.mode === 'repair') await writeRepair(context, suggestion, outcome, record);
        }
        records.set(suggestion.id, record);
        emit({ type: 'suggestion-finished', record });
      }
      fatalAgentError = budget.fatal !== null;
      endpointDown = budget.endpointDown;
      costUsd = budget.costUsd;
    }

    const suggestions = considered.map((suggestion) => records.get(suggestion.id)!);
    const results: ResultsFile = { version: 1, run: runRecord(context, identity), suggestions };
    const exitCode = exitCodeFor(results, { fatalAgentError });
    results.run = { ...results.run, finished: new Date().toISOString(), counts: countStatuses(suggestions), endpoint_down: endpointDown, cost_usd: costUsd, exit_code: exitCode };
    await writeResults(options.dotDir, results);
    emit({ type: 'run-finished', run: results.run });
    reporter.print(`\n${renderSummary(results)}`);
    return exitCode;
  } finally {
    for (const cleanup of cleanups) await cleanup();
  }
}

async function chooseAgent(context: RunContext, ladder: PromptLadder, scratchDir: string, io: RunIo): Promise<Agent | null> {
  const { options, emit } = context;
  const { agent, notice } = await createAgent({ settings: options.agent, scratchDir, systemPrompt: ladder.system, env: io.agentEnv });
  if (notice) emit({ type: 'notice', level: 'info', message: notice });
  if (!agent && !options.builtin) emit({ type: 'notice', level: 'warning', message: 'no agent and --no-builtin: failing suggestions cannot be repaired' });
  return agent;
}

async function writeRepair(context: RunContext, suggestion: Suggestion, outcome: Extract<RepairOutcome, { status: 'repaired' }>, record: SuggestionRecord): Promise<void> {
  faultPoint('before-write-back');
  const written = await writeBack(context.options.dotDir, suggestion, outcome.canonical);
  record.changed_files = written.changedFiles.length > 0 ? written.changedFiles : record.changed_files;
  context.emit({ type: 'written', id: suggestion.id, files: written.changedFiles, digest: written.digest });
  faultPoint('after-write-back');
}

/** What the repair works on: the original sources, the generated patches and their result. */
async function repairTask(suggestion: Suggestion, dp: DotDiscopop, build: BuildResult): Promise<RepairTask> {
  const sources = new Map<string, string>();
  const patched = new Map<string, string>();
  for (const file of suggestion.files) {
    const source = await readFile(dp.files.get(file.fileId)!.path, 'utf8');
    sources.set(file.fileId, source);
    // A generated patch that does not apply leaves the file as it is; the diagnostics say why.
    const [patch] = parsePatches(file.text).patches;
    const applied = patch ? applyFilePatch(source, patch) : null;
    patched.set(file.fileId, applied?.ok && applied.result !== null ? applied.result : source);
  }
  return { suggestion, sources, generated: generatedPatchSet(suggestion) as Map<string, string>, patched, build };
}

/** A suggestion that builds now and whose patches are what an earlier repair wrote. */
async function repairedEarlier(dotDir: string, id: string): Promise<boolean> {
  const written = await readWrittenDigest(dotDir, id);
  return written !== null && written === (await digestDir(`${dotDir}/patch_generator/${id}`));
}

function runRecord(context: RunContext, identity: AgentIdentity): RunRecord {
  const { options } = context;
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
    cost_usd: 0,
    exit_code: null,
  };
}

function recordedOptions(options: RunOptions): Record<string, unknown> {
  const { agent, ...rest } = options;
  return { ...rest, agent: { ...agent } };
}

function newRunId(): string {
  return `${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}-${randomBytes(3).toString('hex')}`;
}

