// Discovery's builds near the compile limit. Every suggestion is first screened: only the units
// its patch set changes, compiled with the reference build's own commands (screen.ts). A screen
// that fails the way a full build would fail decides the suggestion. The suggestions whose units all
// compiled are confirmed by full compile.sh builds that carry several of them at once — patch sets
// on disjoint files in one workspace, one link for many; a confirmation build that fails is split
// and built again, down to the suggestion alone, which is today's isolated build. Whatever cannot
// be screened exactly is built alone with compile.sh.
import { join } from 'node:path';
import type { Emit } from '../../formats/events.js';
import type { BuildResult, DotDiscopop, PatchSet } from '../../formats/types.js';
import type { RecordedCompiles } from '../compiler-record.js';
import type { WorkspacePlacement } from '../placement.js';
import { buildFinished } from '../pool-jobs.js';
import type { BuildRequest } from '../queue.js';
import { runRecordedCompiles, screenPlan } from './screen.js';
import { ObjectStash } from './stash.js';

/** What screening needs from the build pool. */
export interface ScreeningPool {
  readonly jobs: number;
  /** The pool's own folder; the screens' objects are kept below it. */
  readonly root: string;
  readonly workspacePlacement: WorkspacePlacement | undefined;
  recordedCompiles(): Promise<RecordedCompiles>;
  /** One build in a workspace of the pool (queue.ts), after the reference build. */
  queue(request: BuildRequest): Promise<BuildResult>;
}

export interface ToBuild {
  id: string;
  patchSet: PatchSet;
}

/** Reasons for building with compile.sh alone that the notice names. */
const NAMED_REASONS = 3;

/**
 * The verdict of every suggestion of `toBuild`, equal to its isolated compile.sh build's: `onBuilt`
 * sees each as soon as it is known, with its `build-finished` event.
 */
export function screenAndConfirm(o: {
  dp: DotDiscopop;
  pool: ScreeningPool;
  emit: Emit;
  toBuild: readonly ToBuild[];
  /** The build as the run judges it beyond the compiler's word, after its build-finished event and before onBuilt. */
  judge: (id: string, build: BuildResult) => Promise<BuildResult>;
  onBuilt: (id: string, build: BuildResult) => Promise<void>;
}): Promise<BuildResult>[] {
  const { pool, emit } = o;
  const judged = async (id: string, build: BuildResult): Promise<BuildResult> => {
    const verdict = await o.judge(id, build);
    await o.onBuilt(id, verdict);
    return verdict;
  };
  const decided = async (id: string, build: BuildResult): Promise<BuildResult> => {
    emit(buildFinished(id, 'discovery', build));
    return judged(id, build);
  };
  const alone = async (s: ToBuild, events: 'all' | 'none') => {
    const build = await pool.queue({ id: s.id, patchSet: s.patchSet, purpose: 'discovery', events });
    return events === 'all' ? judged(s.id, build) : decided(s.id, build);
  };
  const stash = new ObjectStash({
    dir: join(pool.root, 'screened'),
    projectRoot: o.dp.projectRoot,
    reusable: () => pool.workspacePlacement?.outputs === 'copied',
  });
  const confirmGroup = (label: string, patchSet: PatchSet, screened: readonly string[]) =>
    pool.queue({ id: label, patchSet, purpose: 'discovery', events: 'none', outputs: stash.objectsOf(screened) });
  const confirming = new Confirmations(pool.jobs, confirmGroup, decided, alone);
  const fallbacks: string[] = [];
  const planned = pool.recordedCompiles().then((recorded) => {
    const plans = new Map(o.toBuild.map((s) => [s.id, screenPlan(o.dp, recorded, s.patchSet)]));
    const screened = [...plans.values()].filter((plan) => plan.ok).length;
    for (const [id, plan] of plans) if (!plan.ok) fallbacks.push(`suggestion ${id}: ${plan.reason}`);
    if (!recorded.ok) {
      emit({
        type: 'notice',
        level: 'info',
        message: `discovery builds every suggestion alone with compile.sh: ${recorded.reason}`,
      });
    } else {
      if (screened > 0) {
        const source = `the compiler calls of the reference build (${recorded.compiles.length} recorded through PATH)`;
        emit({
          type: 'notice',
          level: 'info',
          message: `discovery compiles each suggestion's changed units alone with ${source}, then confirms those that compile with compile.sh builds carrying several suggestions at once`,
        });
      }
      if (fallbacks.length > 0) {
        const named = fallbacks.slice(0, NAMED_REASONS).join('; ');
        const more = fallbacks.length > NAMED_REASONS ? ` (and ${fallbacks.length - NAMED_REASONS} more)` : '';
        emit({
          type: 'notice',
          level: 'info',
          message: `${fallbacks.length} suggestion(s) are built alone with compile.sh, as no exact compiler command is known for them: ${named}${more}`,
        });
      }
    }
    confirming.expect(screened);
    return plans;
  });
  return o.toBuild.map(async (s) => {
    const plan = (await planned).get(s.id);
    if (!plan?.ok) return alone(s, 'all');
    const { commands } = plan;
    const screening = pool.queue({
      id: s.id,
      patchSet: s.patchSet,
      purpose: 'discovery',
      events: 'started',
      compile: (request) => runRecordedCompiles({ ...request, commands }),
      passed: (workspaceRoot) => stash.keep(s.id, commands, workspaceRoot),
    });
    const screen = await screening.catch((error: unknown) => {
      // An interrupted screen still counts: the suggestions waiting for their confirmation are
      // then handed to the (aborted) pool, which rejects them, rather than waiting for ever.
      confirming.settle();
      throw error;
    });
    if (screen.ok) return confirming.add(s);
    confirming.settle();
    // A patch that does not apply fails the full build the same way. A compile failure decides
    // when its diagnostics are those of a full build: the one command's, as make stops at it.
    if (
      screen.failedAt === 'patch' ||
      (screen.failedAt === 'compile' && commands.length === 1 && screen.diagnostics.length > 0)
    )
      return decided(s.id, screen);
    return alone(s, 'none');
  });
}

/**
 * The screened suggestions that compiled, gathered until every screen has finished, then built
 * with compile.sh in groups of patch sets on disjoint files, one group per job.
 */
class Confirmations {
  private pending: { s: ToBuild; resolve: (build: BuildResult) => void; reject: (error: unknown) => void }[] = [];
  private waiting = Number.POSITIVE_INFINITY;

  constructor(
    private readonly jobs: number,
    private readonly confirmGroup: (
      label: string,
      patchSet: PatchSet,
      screened: readonly string[],
    ) => Promise<BuildResult>,
    private readonly decided: (id: string, build: BuildResult) => Promise<BuildResult>,
    private readonly alone: (s: ToBuild, events: 'none') => Promise<BuildResult>,
  ) {}

  expect(screens: number): void {
    this.waiting = screens;
    this.flush();
  }

  /** A screen that passed: its suggestion waits for a group. */
  add(s: ToBuild): Promise<BuildResult> {
    return new Promise((resolve, reject) => {
      this.pending.push({ s, resolve, reject });
      this.settle();
    });
  }

  /** One screen finished. */
  settle(): void {
    this.waiting--;
    this.flush();
  }

  private flush(): void {
    if (this.waiting > 0 || this.pending.length === 0) return;
    const all = this.pending.splice(0);
    for (const group of disjointGroups(all, this.jobs)) {
      this.confirm(group).catch((error: unknown) => {
        for (const entry of group) entry.reject(error);
      });
    }
  }

  private async confirm(group: typeof this.pending): Promise<void> {
    if (group.length === 1) {
      const [only] = group as [(typeof group)[number]];
      only.resolve(await this.alone(only.s, 'none'));
      return;
    }
    const label = `${group[0]!.s.id}+${group.length - 1}`;
    const merged: PatchSet = new Map(group.flatMap((entry) => [...entry.s.patchSet]));
    const build = await this.confirmGroup(
      label,
      merged,
      group.map((entry) => entry.s.id),
    );
    if (build.ok) {
      const share = Math.round(build.durationMs / group.length);
      for (const entry of group)
        entry.resolve(
          await this.decided(entry.s.id, { ok: true, output: build.output, diagnostics: [], durationMs: share }),
        );
      return;
    }
    const half = Math.ceil(group.length / 2);
    await Promise.all([this.confirm(group.slice(0, half)), this.confirm(group.slice(half))]);
  }
}

/** At most `count` groups, more where patch sets share a file; in each, no file is patched twice. */
function disjointGroups<T extends { s: ToBuild }>(entries: readonly T[], count: number): T[][] {
  const groups: { entries: T[]; files: Set<string> }[] = Array.from(
    { length: Math.max(1, Math.min(count, entries.length)) },
    () => ({ entries: [], files: new Set() }),
  );
  let next = 0;
  for (const entry of entries) {
    const files = [...entry.s.patchSet.keys()];
    let placed = false;
    for (let tried = 0; tried < groups.length && !placed; tried++) {
      const group = groups[(next + tried) % groups.length]!;
      if (files.some((file) => group.files.has(file))) continue;
      group.entries.push(entry);
      for (const file of files) group.files.add(file);
      next = (next + tried + 1) % groups.length;
      placed = true;
    }
    if (!placed) {
      groups.push({ entries: [entry], files: new Set(files) });
      next = 0;
    }
  }
  return groups.map((group) => group.entries).filter((group) => group.length > 0);
}
