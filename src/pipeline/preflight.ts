// Preflight: read the .discopop folder, select the considered suggestions, refuse what must not
// run, and (after the session began) work out what --resume takes over from the run before.
import { readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { buildInputs, suggestionBuildDigest, version1BuildDigest } from '../build/index.js';
import { notConsidered, readDotDiscopop, refuseIfApplied, selectSuggestions } from '../discopop/index.js';
import { RefusedError, UsageError } from '../errors.js';
import { atLeast } from '../log.js';
import { loadPromptLadder, type PromptLadder } from '../repair/index.js';
import type { RunEvent } from '../formats/events.js';
import type { RunOptions } from '../formats/run-options.js';
import type { StoredRunState } from '../formats/resume-state.js';
import type { NotConsidered } from '../formats/results.js';
import type { PriorAttempt } from '../formats/outcome.js';
import type { DotDiscopop, Suggestion } from '../formats/types.js';
import {
  carryOverAttempts,
  copyAttempts,
  digestDir,
  readAttemptsIn,
  readEventLogFile,
  readRunState,
  unwritableSuggestionFolders,
} from '../store/index.js';
import { readWrittenDigest, writtenNames } from '../store/backup.js';
import { digestSet, readSet } from '../store/patch-set-files.js';
import { suggestionDir } from '../store/paths.js';
import { emitFinished } from './records.js';
import { carriedEvents, planResume, upgradeRunState, type ResumePlan } from './resume.js';
import { keepRunState } from './run-state.js';
import type { RunContext } from './session.js';

export interface Preflight {
  dp: DotDiscopop;
  considered: Suggestion[];
  /** The suggestions of patch_generator/ the selection left out, each with the reason. */
  notConsidered: NotConsidered[];
  /** null for --discover-only, which asks nobody. */
  ladder: PromptLadder | null;
  /** The run-state of the run --resume continues, read before the rotation moves it to history/. */
  previousState: StoredRunState | null;
}

export async function preflight(options: RunOptions): Promise<Preflight> {
  const dp = await readDotDiscopop(options.dotDir, options.config, options.projectRoot);
  refuseIfApplied(dp);
  const considered = selectSuggestions(dp, { hotspotTypes: options.hotspotTypes, suggestions: options.suggestions });
  const left = notConsidered(dp, considered, {
    ...(options.suggestions !== undefined && { suggestions: options.suggestions }),
  });
  if (options.mode === 'repair') await refuseUnwritable(options.dotDir, considered);
  // A broken --prompt-dir must stop the run before any build spends minutes.
  const ladder = options.mode === 'discover-only' ? null : await loadPromptLadder(options.promptDir);
  // Only the most recent run can be resumed.
  const previousState = options.resume ? await readRunState(options.dotDir) : null;
  return { dp, considered, notConsidered: left, ladder, previousState };
}

async function refuseUnwritable(dotDir: string, considered: readonly Suggestion[]): Promise<void> {
  const lines = await unwritableSuggestionFolders(
    dotDir,
    considered.filter((s) => s.files.length > 0).map((s) => s.id),
  );
  if (lines.length === 0) return;
  throw new RefusedError(
    [
      ...lines,
      'a verified repair could not be written back there; make the folders writable, or repair without writing with --dry-run',
    ].join('\n'),
  );
}

/** Suggestions whose patches are what an earlier repair wrote (backups/<id>.written matches). */
export async function repairedEarlierIds(dotDir: string, considered: Suggestion[]): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const { id, dir } of considered) {
    if (writtenNames(await readWrittenDigest(dotDir, id), await readSet(dir))) ids.add(id);
  }
  return ids;
}

export interface Resume {
  plan: ResumePlan;
  /** The attempts each continued suggestion already made, carried into this run's attempts/. */
  attempts: Map<string, PriorAttempt[]>;
  /** Build digest of every considered suggestion with a patch. */
  digests: Map<string, string>;
}

/**
 * Works out what this run takes over from the one it resumes (records, attempts, discovery builds),
 * carries their attempts/ folders and events into this run, finishes the records it keeps, and
 * starts the subscriber that keeps the run's own run-state.json.
 */
export async function prepareResume(
  context: RunContext,
  pre: Preflight,
  o: { repairedEarlier: ReadonlySet<string> },
): Promise<Resume> {
  const { options, emit, reporter } = context;
  const { dp, considered, previousState } = pre;
  const previousDir = context.previousDir;
  const mode = options.mode === 'dry-run' ? 'dry-run' : 'repair';
  const { tree, environment, version1 } = await buildInputs(dp, {
    threads: options.threads,
    exclude: options.exclude,
    signal: context.interrupt.signal,
  });
  const inputs = { tree, environment, outputs: await ownOutputFiles(dp.projectRoot) };
  const digests = new Map<string, string>();
  const patchSets = new Map<string, string>();
  for (const s of considered) {
    if (s.files.length === 0) continue;
    patchSets.set(s.id, await digestDir(s.dir));
    digests.set(s.id, suggestionBuildDigest(environment, patchSets.get(s.id)!));
  }
  const upgraded =
    previousState &&
    upgradeRunState(previousState, {
      inputs,
      mode,
      version1,
      patchSets,
      digests,
      version1Digest: (set) => version1BuildDigest(version1, set),
    });
  const plan: ResumePlan = !options.resume
    ? { from: null, notice: '', builds: new Map(), kept: new Map() }
    : upgraded && 'fresh' in upgraded
      ? { from: null, notice: `--resume: ${upgraded.fresh}; starting afresh`, builds: new Map(), kept: new Map() }
      : planResume({
          previous: upgraded?.state ?? null,
          previousDir,
          mode,
          inputs,
          digests,
          writtenByRepair: o.repairedEarlier,
        });
  if (options.resume) {
    // Always said: at --log INFO and below the event itself is printed, above it the reporter says it.
    emit({ type: 'notice', level: 'info', message: plan.notice });
    if (!atLeast('INFO', options.log)) reporter.notice(plan.notice);
  }
  const attempts = new Map<string, PriorAttempt[]>();
  if (plan.from !== null && previousDir !== null) {
    for (const id of plan.builds.keys())
      attempts.set(id, await carryOverAttempts(path.join(previousDir, 'attempts', id), options.dotDir, id));
    for (const id of plan.kept.keys()) {
      const folder = path.join(previousDir, 'attempts', id);
      await copyAttempts(
        folder,
        options.dotDir,
        id,
        (await readAttemptsIn(folder)).map((a) => a.attempt),
      );
    }
    const events = await previousEvents(path.join(previousDir, 'progress.jsonl'));
    const written = new Map<string, string>();
    for (const [id, record] of plan.kept) {
      // The carried `written` event names the set in patch-repair's own digest form, as every `written` event does.
      const inPlace = await readSet(suggestionDir(options.dotDir, id));
      if (record.status === 'repaired' && writtenNames(await readWrittenDigest(options.dotDir, id), inPlace))
        written.set(id, digestSet(inPlace));
    }
    context.carry(carriedEvents(events, { kept: plan.kept, continued: attempts, written }));
    emit({ type: 'resumed', from: plan.from });
  }
  for (const record of plan.kept.values()) emitFinished(context, record);
  keepRunState(context, { version: 2, run_id: context.runId, mode, ...inputs });
  await context.saved();
  return { plan, attempts, digests };
}

/** The resumed run's events; none when its log is gone or unreadable, which costs only its counts in the funnel. */
async function previousEvents(file: string): Promise<RunEvent[]> {
  try {
    return (await readEventLogFile(file)).events;
  } catch (error) {
    if (error instanceof UsageError) return [];
    throw error;
  }
}

/**
 * The files in the project that this process's stdout and stderr go to (`patch-repair … > run.log
 * 2>&1` from the project root), project-relative: their growth is the run's own doing. Only Linux
 * names them (/proc/self/fd); elsewhere there are none.
 */
async function ownOutputFiles(projectRoot: string): Promise<string[]> {
  const root = await realpath(projectRoot);
  const files = new Set<string>();
  for (const fd of [1, 2]) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => null);
    if (target === null || !path.isAbsolute(target) || !(await stat(target).catch(() => null))?.isFile()) continue;
    const rel = path.relative(root, target);
    if (rel !== '' && rel.split(path.sep)[0] !== '..' && !path.isAbsolute(rel))
      files.add(rel.split(path.sep).join('/'));
  }
  return [...files];
}
