// Discovery: the build pool, the OpenMP probe beside the first builds, every considered suggestion
// built on its own (or its build taken over by --resume) → the suggestions that fail. Each build is
// an event (`discovered`, with the digest of what it depended on) as soon as it finished, so an
// interrupted discovery still knows it.
import {
  BuildPool,
  discover,
  generatedPatchSet,
  placeProbe,
  probeRefusal,
  runOpenmpProbe,
  type WorkspacePlacement,
} from '../build/index.js';
import { RefusedError } from '../errors.js';
import { faultPoint } from '../fault.js';
import { runFromEvents } from '../formats/run-fold.js';
import { settledByDiscovery, type Failing } from '../formats/suggestion-records.js';
import type { SuggestionRecord, Workspaces } from '../formats/results.js';
import type { BuildResult, DotDiscopop, Suggestion } from '../formats/types.js';
import { withCollapseFindings } from '../builtin/collapse-check.js';
import type { Preflight } from './preflight.js';
import { emitFinished } from './records.js';
import type { RunContext } from './session.js';
import { collapseCheckFor, patchedFromDisk } from './static-check.js';

export interface Discovery {
  failing: Failing[];
  /** --check-run all: suggestions that build as generated, their records finished once they ran. */
  held: SuggestionRecord[];
}

/** The launcher's preflight (Slurm's token job), then the build pool with its first workspace. */
export async function openPool(
  context: RunContext,
  dp: DotDiscopop,
  defer: (cleanup: () => Promise<void>) => void,
): Promise<BuildPool> {
  const { options, emit, interrupt, launcher } = context;
  await launcher.preflight({ scratchDir: context.scratchDir, workDir: options.workDir, signal: interrupt.signal });
  const pool = await BuildPool.create({
    dp,
    scratchDir: context.scratchDir,
    jobs: options.jobs,
    threads: options.threads,
    timeoutMs: options.buildTimeoutS * 1000,
    signal: interrupt.signal,
    emit,
    exclude: options.exclude,
    launcher,
  });
  defer(() => pool.dispose());
  return pool;
}

export async function discoveryStage(
  context: RunContext,
  pre: Preflight,
  pool: BuildPool,
  o: {
    reused: ReadonlyMap<string, BuildResult> | undefined;
    /** Build digest of every considered suggestion with a patch; empty when the run cannot be resumed. */
    digests: ReadonlyMap<string, string>;
  },
): Promise<Discovery> {
  const { options, emit, interrupt } = context;
  const { dp, considered } = pre;
  const digest = (id: string) => o.digests.get(id) ?? null;
  const judge = staticJudge(dp, pool);
  const reused = o.reused && (await judgedAgain(o.reused, considered, judge));
  for (const [id, build] of reused ?? []) emit({ type: 'discovered', id, digest: digest(id), reused: true, build });
  // The probe is queued first and runs beside the first discovery builds; when it refuses,
  // disposing the pool cancels those, and their rejection is expected. With nothing to build
  // there is nothing the probe could protect. A resumed run probes again: the probe is one build.
  const toBuild = considered.some((s) => s.files.length > 0);
  const probing = toBuild
    ? runOpenmpProbe({ dp, placement: await placeProbe(considered), pool, emit })
    : Promise.resolve(null);
  const finished = new Set(runFromEvents(context.events).records.keys());
  const discovering = discover({
    dp,
    considered,
    settled: finished,
    pool,
    emit,
    reused,
    judge,
    onBuilt: async (id, build) => emit({ type: 'discovered', id, digest: digest(id), reused: false, build }),
  });
  discovering.catch(() => undefined);
  const probe = await probing;
  if (probe?.status === 'compiled') throw new RefusedError(probeRefusal(dp, probe));
  const discovery = await discovering;
  interrupt.check();
  faultPoint('pipeline.after-discovery');
  notePlacement(context, pool);
  const settled = settledByDiscovery(considered, discovery.builds, {
    finished,
    repairedEarlier: pre.repairedEarlier,
    runsGenerated: (options.checkRun === 'all' || options.checkRaces === 'all') && options.mode !== 'discover-only',
  });
  for (const record of settled.records) emitFinished(context, record);
  await context.saved();
  return { failing: settled.failing, held: settled.held };
}

/** A build taken over from a stopped run (of an older release, too) is judged like a fresh one. */
async function judgedAgain(
  reused: ReadonlyMap<string, BuildResult>,
  considered: readonly Suggestion[],
  judge: (suggestion: Suggestion, build: BuildResult) => Promise<BuildResult>,
): Promise<Map<string, BuildResult>> {
  const judged = [...reused].map(async ([id, build]) => {
    const suggestion = considered.find((s) => s.id === id);
    return [id, suggestion ? await judge(suggestion, build) : build] as const;
  });
  return new Map(await Promise.all(judged));
}

/**
 * A build as the run judges it: the compiler's verdict, and the static collapse check whatever
 * that verdict was (clang builds a collapse over an imperfect nest; gcc's own error keeps its path).
 */
function staticJudge(
  dp: DotDiscopop,
  pool: BuildPool,
): (suggestion: Suggestion, build: BuildResult) => Promise<BuildResult> {
  const check = collapseCheckFor(dp, pool);
  const patched = patchedFromDisk(dp);
  return async (suggestion, build) => {
    if (!build.ok && build.failedAt !== 'compile') return build;
    return withCollapseFindings(build, await check(generatedPatchSet(suggestion), patched));
  };
}

/** At most this many path-holding outputs are named in results.json; the count says how many there are. */
const RECORDED_PATH_FILES = 10;

/** The workspace placement as the run record states it. */
function workspacesOf(placement: WorkspacePlacement): Workspaces {
  return {
    count: placement.workspaces,
    reference_outputs: placement.outputs,
    reference_builds: placement.referenceBuilds,
    path_files: placement.pathFiles.slice(0, RECORDED_PATH_FILES),
    path_file_count: placement.pathFiles.length,
  };
}

/** Emits the pool's workspace placement when it is known and differs from what the run last said of it. */
export function notePlacement(context: RunContext, pool: BuildPool | undefined): void {
  const placement = pool?.workspacePlacement;
  if (!placement) return;
  const workspaces = workspacesOf(placement);
  if (JSON.stringify(runFromEvents(context.events).workspaces) !== JSON.stringify(workspaces))
    context.emit({ type: 'workspaces', workspaces });
}
