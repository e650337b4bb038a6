// --resume: what the most recent unfinished run already settled, and may be taken over. Nothing is
// trusted whose inputs changed: the project tree entry by entry (but for the files a run and its
// user leave beside it: both runs' own stdout and stderr, editors' backup and swap files),
// compile.sh, settings and compiler; a discovery build is reused only when its patch set is the
// same too, and a suggestion's records and attempts carry over only under the same condition (or,
// for a repair the old run wrote, when its patch set is still exactly what it wrote). A resumed run is one run:
// the events of what it takes over are carried into its own progress.jsonl, so its funnel, `show`
// and review page count them as the uninterrupted run would have.
//
// The stage (resumeStage) reads the run before from history/, where this run's start moved it;
// planResume, upgradeRunState, projectChange and carriedEvents beside it are pure.
import path from 'node:path';
import { version1BuildDigest } from '../build/index.js';
import { UsageError } from '../errors.js';
import { atLeast } from '../log.js';
import type { RunState, StoredRunState } from '../formats/resume-state.js';
import type { RunEvent } from '../formats/events.js';
import type { SuggestionRecord } from '../formats/results.js';
import type { PriorAttempt } from '../formats/outcome.js';
import type { BuildResult } from '../formats/types.js';
import { carryOverAttempts, copyAttempts, readAttemptsIn, readEventLogFile, readRunState } from '../store/index.js';
import { readWrittenDigest, writtenNames } from '../store/backup.js';
import { digestSet, readSet } from '../store/patch-set-files.js';
import { suggestionDir } from '../store/paths.js';
import type { RunInputs } from './inputs.js';
import { emitFinished } from './records.js';
import type { RunContext } from './session.js';

export interface Resume {
  /** Discovery builds taken over, by suggestion id. */
  builds: ReadonlyMap<string, BuildResult>;
  /** The attempts each continued suggestion already made, carried into this run's attempts/. */
  attempts: ReadonlyMap<string, PriorAttempt[]>;
}

/**
 * Works out what this run takes over from the one it resumes (records, attempts, discovery builds),
 * carries their attempts/ folders and events into this run and finishes the records it keeps.
 * Without --resume nothing is taken over and nothing is said.
 */
export async function resumeStage(
  context: RunContext,
  inputs: RunInputs,
  o: { repairedEarlier: ReadonlySet<string> },
): Promise<Resume> {
  const { options, emit, reporter, previousDir } = context;
  if (!options.resume) return { builds: new Map(), attempts: new Map() };
  const plan = await resumePlan(context, inputs, o.repairedEarlier);
  // Always said: at --log INFO and below the event itself is printed, above it the reporter says it.
  emit({ type: 'notice', level: 'info', message: plan.notice });
  if (!atLeast('INFO', options.log)) reporter.notice(plan.notice);
  const attempts = new Map<string, PriorAttempt[]>();
  if (plan.from !== null && previousDir !== null) {
    for (const id of plan.builds.keys())
      attempts.set(id, await carryOverAttempts(path.join(previousDir, 'attempts', id), options.dotDir, id));
    for (const id of plan.kept.keys()) {
      const folder = path.join(previousDir, 'attempts', id);
      const attempts = (await readAttemptsIn(folder)).map((a) => a.attempt);
      await copyAttempts(folder, options.dotDir, id, attempts);
    }
    const events = await previousEvents(path.join(previousDir, 'progress.jsonl'));
    const written = await keptWrites(options.dotDir, plan.kept);
    context.carry(carriedEvents(events, { kept: plan.kept, continued: attempts, written }));
    emit({ type: 'resumed', from: plan.from });
  }
  for (const record of plan.kept.values()) emitFinished(context, record);
  await context.saved();
  return { builds: plan.builds, attempts };
}

/** The plan over the previous run's run-state.json, one an earlier release wrote upgraded first. */
async function resumePlan(
  context: RunContext,
  inputs: RunInputs,
  repairedEarlier: ReadonlySet<string>,
): Promise<ResumePlan> {
  const { previousDir } = context;
  const mode = context.options.mode === 'dry-run' ? 'dry-run' : 'repair';
  const previous = previousDir === null ? null : await readRunState(path.join(previousDir, 'run-state.json'));
  const upgraded =
    previous &&
    upgradeRunState(previous, {
      inputs,
      mode,
      version1: inputs.version1,
      patchSets: inputs.patchSets,
      digests: inputs.digests,
      version1Digest: (set) => version1BuildDigest(inputs.version1, set),
    });
  if (upgraded && 'fresh' in upgraded)
    return { from: null, notice: `--resume: ${upgraded.fresh}; starting afresh`, builds: new Map(), kept: new Map() };
  return planResume({
    previous: upgraded?.state ?? null,
    previousDir,
    mode,
    inputs,
    digests: inputs.digests,
    writtenByRepair: repairedEarlier,
  });
}

/** The carried `written` event names each kept repair's set in patch-repair's own digest form, as every `written` event does. */
async function keptWrites(dotDir: string, kept: ReadonlyMap<string, SuggestionRecord>): Promise<Map<string, string>> {
  const written = new Map<string, string>();
  for (const [id, record] of kept) {
    const inPlace = await readSet(suggestionDir(dotDir, id));
    if (record.status === 'repaired' && writtenNames(await readWrittenDigest(dotDir, id), inPlace))
      written.set(id, digestSet(inPlace));
  }
  return written;
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

/** What the run depends on now (build/inputs.ts), and the project files its own stdout and stderr go to. */
export interface CurrentInputs {
  tree: Readonly<Record<string, string>>;
  environment: Readonly<Record<string, string>>;
  outputs: readonly string[];
}

export interface ResumePlan {
  /** The run taken over; null when the run starts afresh. */
  from: string | null;
  /** One line for the user: what was taken over, or why nothing was. */
  notice: string;
  /** Discovery builds whose inputs did not change, by suggestion id; their attempts continue. */
  builds: Map<string, BuildResult>;
  /** Records kept as they are; these suggestions are neither built nor asked again. */
  kept: Map<string, SuggestionRecord>;
}

/**
 * A run-state.json of version 1 (the release before) in this release's form, in memory: version 1
 * kept one digest of everything the builds depend on, so it is trusted only when that digest,
 * computed today the way it was then (`version1`), is the same. Then the tree and environment are
 * today's, and a discovery build stands when its version-1 digest matches today's patch set; a
 * changed digest cannot say what changed, and nothing of the run is taken over.
 */
export function upgradeRunState(
  previous: StoredRunState,
  now: {
    inputs: CurrentInputs;
    mode: 'repair' | 'dry-run';
    version1: string;
    patchSets: ReadonlyMap<string, string>;
    digests: ReadonlyMap<string, string>;
    version1Digest: (patchSet: string) => string;
  },
): { state: RunState } | { fresh: string } {
  if (previous.version === 2) return { state: previous };
  // A finished run, or one of the other mode, is not resumed whatever its digest: planResume says so.
  if (previous.inputs !== now.version1 && !previous.complete && previous.mode === now.mode) {
    return {
      fresh: `the project changed since run ${previous.run_id}, or its compiler, compile.sh or settings did (an earlier release recorded that run, as one digest that cannot name what changed), so nothing of it is trusted`,
    };
  }
  const builds: RunState['builds'] = {};
  for (const [id, { digest, build }] of Object.entries(previous.builds)) {
    const patchSet = now.patchSets.get(id);
    const same = patchSet !== undefined && digest === now.version1Digest(patchSet);
    builds[id] = { digest: same ? now.digests.get(id)! : `version 1: ${digest}`, build };
  }
  const { tree, environment } = now.inputs;
  return {
    state: {
      version: 2,
      run_id: previous.run_id,
      mode: previous.mode,
      tree: { ...tree },
      environment: { ...environment },
      outputs: [...now.inputs.outputs],
      builds,
      finished: previous.finished,
      complete: previous.complete,
    },
  };
}

export function planResume(o: {
  previous: RunState | null;
  /** Where the previous run's files went (history/<its id>/). */
  previousDir: string | null;
  mode: 'repair' | 'dry-run';
  inputs: CurrentInputs;
  /** Current build digest of every considered suggestion with a patch. */
  digests: ReadonlyMap<string, string>;
  /** Suggestions whose patch set is exactly what an earlier repair wrote (backups/<id>.written). */
  writtenByRepair: ReadonlySet<string>;
}): ResumePlan {
  const fresh = (why: string): ResumePlan => ({
    from: null,
    notice: `--resume: ${why}; starting afresh`,
    builds: new Map(),
    kept: new Map(),
  });
  const { previous } = o;
  if (!previous || o.previousDir === null) return fresh('no earlier run to resume');
  if (previous.complete) return fresh(`run ${previous.run_id} finished`);
  if (previous.mode !== o.mode)
    return fresh(`run ${previous.run_id} was a ${previous.mode} run, this is a ${o.mode} run`);
  const change = projectChange(previous, o.inputs);
  if (change !== null)
    return fresh(`the project changed since run ${previous.run_id} (${change}), so nothing of it is trusted`);
  const plan: ResumePlan = { from: previous.run_id, notice: '', builds: new Map(), kept: new Map() };
  let changed = 0;
  for (const [id, digest] of o.digests) {
    const old = previous.builds[id];
    const same = old?.digest === digest;
    const record = previous.finished[id];
    // A repaired record stands for the patch set it wrote: kept while that is what is on disk. One
    // whose write-back the kill cut short (undone at the next start) is continued and written now.
    if (record && (record.status === 'repaired' ? o.writtenByRepair.has(id) : same)) {
      plan.kept.set(id, record);
      continue;
    }
    if (!same) {
      if (old) changed += 1;
      continue;
    }
    plan.builds.set(id, old.build);
  }
  const parts = [`${plan.kept.size} suggestion(s) kept as finished`, `${plan.builds.size} discovery build(s) reused`];
  if (changed > 0) parts.push(`${changed} changed patch set(s) start afresh`);
  plan.notice = `resuming run ${previous.run_id}: ${parts.join(', ')}`;
  return plan;
}

/**
 * What changed between the resumed run's inputs and today's, in words naming it; null when nothing
 * did. A build script may read any file, so any entry of the tree counts, but for the files the
 * runs wrote their own output into and editors' leftovers.
 */
export function projectChange(
  previous: Pick<RunState, 'tree' | 'environment' | 'outputs'>,
  now: CurrentInputs,
): string | null {
  const environment = Object.keys({ ...previous.environment, ...now.environment }).filter(
    (name) => previous.environment[name] !== now.environment[name],
  );
  if (environment.length > 0) return `${environment.join(', ')} changed`;
  const outputs = new Set([...previous.outputs, ...now.outputs]);
  const paths = [...new Set([...Object.keys(previous.tree), ...Object.keys(now.tree)])].sort();
  const changed = paths.filter(
    (rel) => !outputs.has(rel) && !isEditorLeftover(rel) && previous.tree[rel] !== now.tree[rel],
  );
  if (changed.length === 0) return null;
  const first = changed[0]!;
  const how = !(first in now.tree) ? 'was removed' : !(first in previous.tree) ? 'was added' : 'changed';
  return `${first} ${how}${changed.length > 1 ? `, and ${changed.length - 1} more entr${changed.length === 2 ? 'y' : 'ies'}` : ''}`;
}

/** Editors' backup, swap and lock files: `name~`, `.name.swp` (.swo, .swx), `#name#`, `.#name`. */
export function isEditorLeftover(rel: string): boolean {
  const name = rel.slice(rel.lastIndexOf('/') + 1);
  return name.endsWith('~') || /^\..+\.sw[pox]$/.test(name) || /^#.+#$/.test(name) || name.startsWith('.#');
}

/**
 * The events of the resumed run that stay true in this one: everything a kept suggestion did but
 * its final record (the resumed run records it again), and of a continued suggestion its reused
 * discovery build and the calls and checks of the attempts carried over. A last attempt that is checked
 * again (its answer arrived, or it was accepted but not written) keeps its call, not its checks.
 * `written`: the .written digest of each kept repair; one whose write-back the kill cut short (and
 * this run's start completed) gets the `written` event the killed run did not get to emit.
 */
export function carriedEvents(
  events: readonly RunEvent[],
  o: {
    kept: ReadonlyMap<string, SuggestionRecord>;
    continued: ReadonlyMap<string, readonly PriorAttempt[]>;
    written: ReadonlyMap<string, string>;
  },
): RunEvent[] {
  const carried = events.filter((event) => {
    if (!('id' in event) || event.id === null) return false;
    if (o.kept.has(event.id)) return true;
    const attempts = o.continued.get(event.id);
    if (!attempts) return false;
    switch (event.type) {
      case 'build-started':
      case 'build-finished':
        return event.purpose === 'discovery';
      case 'call-started':
      case 'call-finished':
        return event.attempt <= attempts.length;
      case 'check': {
        const last = attempts.at(-1);
        const checkedAgain =
          last !== undefined &&
          event.attempt === last.attempt &&
          (last.outcome === 'pending' || last.outcome === 'accepted');
        return event.attempt <= attempts.length && !checkedAgain;
      }
      default:
        return false;
    }
  });
  for (const [id, digest] of o.written) {
    const own = carried.filter((event) => 'id' in event && event.id === id);
    if (own.some((event) => event.type === 'written')) continue;
    carried.push({
      t: own.at(-1)?.t ?? new Date().toISOString(),
      type: 'written',
      id,
      files: o.kept.get(id)?.changed_files ?? [],
      digest,
    });
  }
  return carried;
}
