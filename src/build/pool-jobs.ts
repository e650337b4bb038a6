// What the build pool queues and runs: its workspaces and jobs.
import type { Emit } from '../formats/events.js';
import { ClusterError } from '../errors.js';
import type { BuildResult, PatchSet } from '../formats/types.js';
import type { ProgramRunner } from '../formats/outcome.js';
import type { RunOutcome } from '../process.js';
import type { RecordedCompile } from './compiler-record.js';
import type { StepOutcome } from './launcher.js';
import type { PlacedWorkspace } from './placement.js';

/** A build Slurm could not run is tried on this many fresh job steps more before the run stops. */
export const LAUNCH_RETRIES = 2;

/** A probe build goes ahead of the queue: the run may refuse on its result. */
export type BuildPurpose = 'probe' | 'discovery' | 'verify';

export type LaunchFailed = Extract<StepOutcome, { kind: 'launch-failed' }>;

function isLaunchFailed(value: BuildResult | RunOutcome | LaunchFailed): value is LaunchFailed {
  return 'kind' in value && value.kind === 'launch-failed';
}

export interface Worker extends PlacedWorkspace {
  patchDir: string;
  busy: boolean;
}

export interface Job {
  id: string;
  patchSet: PatchSet;
  purpose: BuildPurpose;
  /** The recorded compiles of the changed units instead of compile.sh: a screen (screen.ts). */
  commands?: readonly RecordedCompile[];
  /** A screen's objects to place over the patched sources before compile.sh (see Workspace.placeOutputs). */
  outputs?: readonly { rel: string; from: string }[];
  /** Which of build-started and build-finished the pool emits; the caller emits the rest. */
  events: BuildEvents;
  /** Runs the built program in the workspace before its rollback; only after a build that passed. */
  then?: (program: ProgramRunner) => Promise<unknown>;
  resolve: (result: { build: BuildResult; ran: unknown }) => void;
  reject: (error: unknown) => void;
}

/** Runs the reference program in an idle workspace, which holds the reference build between builds. */
export interface ReferenceRunJob {
  then: (program: ProgramRunner) => Promise<unknown>;
  resolve: (ran: unknown) => void;
  reject: (error: unknown) => void;
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
