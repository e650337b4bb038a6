// What the parts of the build pool share (queue.ts, reference.ts, isolated.ts): the run's project,
// launcher and limits, the pool's abort signal, its events and its launch retries.
import type { Emit } from '../formats/events.js';
import { ClusterError } from '../errors.js';
import type { BuildResult, DotDiscopop } from '../formats/types.js';
import type { RunOutcome } from '../process.js';
import type { Launcher, StepOutcome } from './launcher.js';

/** A build Slurm could not run is tried on this many fresh job steps more before the run stops. */
export const LAUNCH_RETRIES = 2;

/** A probe build goes ahead of the queue: the run may refuse on its result. */
export type BuildPurpose = 'probe' | 'discovery' | 'verify';

export type LaunchFailed = Extract<StepOutcome, { kind: 'launch-failed' }>;

function isLaunchFailed(value: BuildResult | RunOutcome | LaunchFailed): value is LaunchFailed {
  return 'kind' in value && value.kind === 'launch-failed';
}

export type BuildEvents = 'all' | 'started' | 'none';

export function buildFinished(
  id: string | null,
  purpose: 'reference' | BuildPurpose,
  result: BuildResult,
): Extract<Parameters<Emit>[0], { type: 'build-finished' }> {
  return {
    type: 'build-finished',
    id,
    purpose,
    ok: result.ok,
    error_class: result.errorClass ?? null,
    first_error: result.firstError ?? null,
    duration_ms: result.durationMs,
  };
}

/** What a launch retry needs: the run's abort signal, and where to say that it tries again. */
export interface LaunchRetries {
  signal: AbortSignal;
  emit: Emit;
}

/**
 * Runs `attempt` again on a fresh step while Slurm, not the build, failed, up to LAUNCH_RETRIES
 * more times; then the run cannot go on and says why.
 */
export async function withLaunchRetries<T extends BuildResult | RunOutcome>(
  o: LaunchRetries,
  what: string,
  attempt: () => Promise<T | LaunchFailed>,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    const outcome = await attempt();
    if (!isLaunchFailed(outcome)) return outcome;
    o.signal.throwIfAborted();
    if (retry >= LAUNCH_RETRIES) {
      throw new ClusterError(`${what} could not run on the cluster (${retry + 1} tries): ${outcome.reason}`);
    }
    o.emit({
      type: 'notice',
      level: 'warning',
      message: `${what} could not run on the cluster (${outcome.reason}); trying again on a fresh job step (${retry + 1} of ${LAUNCH_RETRIES})`,
    });
  }
}

export interface PoolContext {
  dp: DotDiscopop;
  launcher: Launcher;
  /** OMP_NUM_THREADS for compile.sh. */
  threads: number;
  /** For one build: applying the patch set and compiling together. */
  timeoutMs: number;
  emit: Emit;
  /** The pool's own folder under the scratch folder; dispose() removes it. */
  root: string;
  /** The pool's: aborted by the run's interrupt or by dispose(). */
  signal: AbortSignal;
  retries: LaunchRetries;
  /** Counts `promise` among the work dispose() waits for before it removes the workspaces. */
  track<T>(promise: Promise<T>): Promise<T>;
}
