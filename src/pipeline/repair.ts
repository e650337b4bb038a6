// Repair: the agent (chosen before discovery) and the built-in repairer repair the failing
// suggestions concurrently, and each verified repair is written back as it settles → one record
// per failing suggestion.
import { readFile } from 'node:fs/promises';
import { createAgent } from '../agent/create.js';
import type { Agent } from '../agent/types.js';
import { generatedPatchSet, preprocessPatched, type BuildPool } from '../build/index.js';
import { decodeBytes } from '../bytes.js';
import { faultPoint } from '../fault.js';
import { applyFilePatch, parsePatches } from '../patch/index.js';
import {
  repairConcurrently,
  repairSuggestion,
  RunBudget,
  type PromptLadder,
  type RepairDeps,
} from '../repair/index.js';
import type { RunCheckSettings } from '../repair/checks/runs.js';
import type { RaceCheckSetup } from '../repair/checks/races.js';
import type { PriorAttempt, RepairOutcome } from '../formats/outcome.js';
import type { SuggestionRecord } from '../formats/results.js';
import {
  outcomeRecord,
  unrepairedRecord,
  type AgentIdentity,
  type Failing,
  type Reason,
} from '../formats/suggestion-records.js';
import type { RepairTask } from '../formats/task.js';
import type { BuildResult, DotDiscopop, Suggestion } from '../formats/types.js';
import { AttemptStore, writeBack, writtenPaths } from '../store/index.js';
import { emitFinished } from './records.js';
import { collapseCheckFor } from './static-check.js';
import type { RunContext } from './session.js';

const MAX_REPAIRS_REASON = '--max-repairs reached';

/** What the repairs work with, from the stages before: the agent, the ladder, the attempts taken over, the checks' settings. */
export interface RepairInputs {
  dp: DotDiscopop;
  pool: BuildPool;
  agent: Agent | null;
  ladder: PromptLadder;
  attempts: ReadonlyMap<string, readonly PriorAttempt[]>;
  runCheck: RunCheckSettings | undefined;
  raceCheck: RaceCheckSetup | undefined;
}

/**
 * How the agent stopped (a fatal error, an endpoint that looked down) is an event of the budget's;
 * an interrupt or a cluster that stops running builds rejects, and the composer ends the run.
 */
export async function repairStage(context: RunContext, failing: Failing[], o: RepairInputs): Promise<void> {
  const { options, emit, interrupt } = context;
  const identity = identityOf(o.agent, options.builtin);
  const deps = repairDeps(context, o);
  // Why writes stopped, once a write-back failed in a way every later one would (the folder cannot be written).
  let writesStopped: string | null = null;
  let settled = 0;
  // When each repair began, for the record's duration_s (its discovery build is added to it).
  const repairStart = new Map<string, number>();
  await repairConcurrently({
    items: failing,
    jobs: options.agentJobs,
    maxRepairs: options.maxRepairs,
    signal: interrupt.signal,
    halted: () => writesStopped !== null,
    repair: async ({ suggestion, build }, index) => {
      repairStart.set(suggestion.id, Date.now());
      emit({ type: 'repair-started', id: suggestion.id, index: index + 1, total: failing.length });
      faultPoint('pipeline.before-repair');
      return repairSuggestion(
        await repairTask(suggestion, build, { dp: o.dp, pool: o.pool, builtin: options.builtin }),
        deps,
        o.attempts.get(suggestion.id),
      );
    },
    settle: async ({ suggestion, build }, outcome) => {
      faultPoint('pipeline.after-repair');
      settled += 1;
      const repairMs = Date.now() - (repairStart.get(suggestion.id) ?? Date.now());
      const verified = outcomeRecord(suggestion, build, outcome, { ...identity, repairMs });
      const standing = { remaining: failing.length - settled, writesStopped };
      const { record, stopsWrites } = await written(context, suggestion, outcome, verified, standing);
      writesStopped ??= stopsWrites;
      emitFinished(context, record);
      await context.saved();
    },
    skip: async ({ suggestion, build }) => {
      const reason: Reason =
        writesStopped === null
          ? { code: 'max-repairs', words: `${MAX_REPAIRS_REASON} (${options.maxRepairs})` }
          : { code: 'writes-stopped', words: `not repaired: ${writesStopped}` };
      emitFinished(context, unrepairedRecord(suggestion, build, { status: 'skipped', reason }));
      await context.saved();
    },
  });
}

/** What every repair of the stage shares: the run's budget (its own), the attempt store, the checks' settings. */
function repairDeps(context: RunContext, o: RepairInputs): RepairDeps {
  const { options, emit, interrupt } = context;
  return {
    dp: o.dp,
    options,
    pool: o.pool,
    agent: o.agent,
    emit,
    attempts: new AttemptStore(options.dotDir),
    signal: interrupt.signal,
    budget: new RunBudget({ maxCostUsd: options.agent.maxCostUsd, emit }),
    scratchDir: context.scratchDir,
    ladder: o.ladder,
    ...(o.runCheck && { runCheck: o.runCheck }),
    ...(o.raceCheck && { raceCheck: { pool: o.pool, setup: o.raceCheck } }),
    collapseCheck: candidateCollapseCheck(o.dp, o.pool),
  };
}

/**
 * A repair's record once settled: a verified repair is written back (never under --dry-run), or
 * fails unwritten once write-backs stopped; `stopsWrites` says why no later one is written.
 */
async function written(
  context: RunContext,
  suggestion: Suggestion,
  outcome: RepairOutcome,
  record: SuggestionRecord,
  o: { remaining: number; writesStopped: string | null },
): Promise<{ record: SuggestionRecord; stopsWrites: string | null }> {
  if (outcome.status !== 'repaired' || context.options.mode !== 'repair') return { record, stopsWrites: null };
  if (o.writesStopped !== null)
    return { record: notWritten(record, o.writesStopped, outcome.acceptedAttempt), stopsWrites: null };
  return writeRepair(context, suggestion, outcome, record, o.remaining);
}

/** A verified repair settled after write-backs stopped: failed, with where the repair is kept. */
function notWritten(verified: SuggestionRecord, writesStopped: string, acceptedAttempt: number): SuggestionRecord {
  return {
    ...verified,
    status: 'failed',
    reason_code: 'write-failed',
    reason: `verified repair not written: ${writesStopped}, and every later write-back would fail the same way; the repair is in attempts/${verified.id}/${acceptedAttempt}/canonical/`,
  };
}

/** The static collapse check on a candidate's canonical patch set and the code it leaves. */
function candidateCollapseCheck(dp: DotDiscopop, pool: BuildPool): RepairDeps['collapseCheck'] {
  const check = collapseCheckFor(dp, pool);
  return (patchSet, resulting) => check(patchSet, async (fileId) => resulting.get(fileId) ?? null);
}

/** Who repairs: the agent, or with none the built-in repairer alone, as the run record names it. */
function identityOf(agent: Agent | null, builtin: boolean): AgentIdentity {
  return { backend: agent?.backend ?? (builtin ? 'builtin' : null), model: agent?.model ?? null };
}

/**
 * The agent the repair stage will call, made before any build: one that cannot be started refuses
 * the run (AgentUnavailableError), and so does --no-builtin when no agent CLI is found.
 */
export async function chooseAgent(context: RunContext, ladder: PromptLadder): Promise<Agent | null> {
  const { options, emit } = context;
  const { agent, notice } = await createAgent({
    settings: options.agent,
    scratchDir: context.scratchDir,
    systemPrompt: ladder.system,
    llmConfigPath: options.llmConfigPath,
    required: !options.builtin,
  });
  // options.md: the run names the agent it picked before its first call, at the default log level.
  emit({ type: 'agent-picked', message: notice, ...identityOf(agent, options.builtin) });
  if (!agent && !options.builtin)
    emit({
      type: 'notice',
      level: 'warning',
      message: '--backend builtin and --no-builtin: failing suggestions cannot be repaired',
    });
  return agent;
}

/**
 * Writes a verified repair back and returns its settled record. The record it will have once
 * written is an event, on disk in run-state.json before the write starts: a run killed once the
 * write is done resumes it as repaired; one killed before finds it unwritten and continues it.
 * One that cannot be written has been undone by writeBack; the record becomes failed with the
 * reason, and the run goes on unless the cause (a read-only or full file system) would stop every
 * later write-back too: then `stopsWrites` is the reason the remaining suggestions are skipped
 * for, so no agent time is spent on repairs that cannot land.
 */
async function writeRepair(
  context: RunContext,
  suggestion: Suggestion,
  outcome: Extract<RepairOutcome, { status: 'repaired' }>,
  verified: SuggestionRecord,
  remaining: number,
): Promise<{ record: SuggestionRecord; stopsWrites: string | null }> {
  context.emit({
    type: 'writing',
    record: { ...verified, written: true, ...writtenPaths(suggestion.id, verified.changed_files) },
  });
  await context.saved();
  faultPoint('pipeline.before-write-back');
  const written = await writeBack(context.options.dotDir, suggestion, outcome.canonical);
  if (!written.written) {
    const reason = `verified repair not written: ${written.problem}; patch_generator/${suggestion.id}/ is unchanged, the repair is in attempts/${suggestion.id}/${outcome.acceptedAttempt}/canonical/`;
    const stop = written.affectsEveryWrite && remaining > 0;
    const next = stop
      ? `the run stops repairing: every later write-back would fail the same way, so none of the remaining ${remaining} suggestion(s) is written`
      : remaining > 0
        ? 'the run goes on with the other suggestions'
        : 'no suggestion is left to repair';
    context.emit({ type: 'notice', level: 'error', message: `suggestion ${suggestion.id}: ${reason}; ${next}` });
    return {
      record: { ...verified, status: 'failed', reason, reason_code: 'write-failed' },
      stopsWrites: stop ? `the write-back of suggestion ${suggestion.id} failed (${written.problem})` : null,
    };
  }
  if (written.superseded) {
    context.emit({
      type: 'notice',
      level: 'warning',
      message: `suggestion ${suggestion.id}: its backup no longer matched patch_generator/${suggestion.id}/ (regenerated since, or left mid-repair by a killed run), so it was moved aside to ${written.superseded}, not replaced; the new backup holds the patches the repair replaced`,
    });
  }
  const changedFiles = written.changedFiles.length > 0 ? written.changedFiles : verified.changed_files;
  context.emit({ type: 'written', id: suggestion.id, files: written.changedFiles, digest: written.digest });
  faultPoint('pipeline.after-write-back');
  return {
    record: { ...verified, written: true, changed_files: changedFiles, ...writtenPaths(suggestion.id, changedFiles) },
    stopsWrites: null,
  };
}

/** What the repair works on: the original sources, the generated patches and their result. */
async function repairTask(
  suggestion: Suggestion,
  build: BuildResult,
  o: { dp: DotDiscopop; pool: BuildPool; builtin: boolean },
): Promise<RepairTask> {
  const { dp, pool } = o;
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
  // Nothing else reads it, so with --no-builtin no file is preprocessed.
  const translationUnits = new Map<string, string>();
  const translationUnitsMissing = new Map<string, string>();
  if (!build.ok && o.builtin) {
    const recorded = await pool.recordedCompiles();
    for (const file of suggestion.files) {
      const preprocessed = await preprocessPatched({
        dp,
        source: dp.files.get(file.fileId)!,
        patched: patched.get(file.fileId)!,
        recorded,
      });
      if (preprocessed.ok) translationUnits.set(file.fileId, preprocessed.text);
      else translationUnitsMissing.set(file.fileId, preprocessed.reason);
    }
  }
  return {
    suggestion,
    sources,
    generated: generatedPatchSet(suggestion) as Map<string, string>,
    patched,
    build,
    translationUnits,
    translationUnitsMissing,
  };
}
