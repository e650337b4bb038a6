// Exceptions are for problems that end the run; expected failures (a build that fails, an
// answer that does not apply) are values. Each class carries the exit code of options.md.

export abstract class PatchRepairError extends Error {
  abstract readonly exitCode: number;
}

/** Bad command line or bad input files: exit 2. The message is one line naming the file. */
export class UsageError extends PatchRepairError {
  readonly exitCode = 2;
}

/** A precondition refuses the run (applied suggestions, a broken reference build, the lock): exit 3. */
export class RefusedError extends PatchRepairError {
  readonly exitCode = 3;
}

/** Raised when SIGINT/SIGTERM asked the run to stop; carries 130 or 143. */
export class InterruptedError extends PatchRepairError {
  constructor(
    readonly signal: 'SIGINT' | 'SIGTERM',
  ) {
    super(`interrupted by ${signal}`);
  }
  get exitCode(): number {
    return this.signal === 'SIGINT' ? 130 : 143;
  }
}

/**
 * The cluster could not run a build even on fresh job steps: a failure of Slurm, not of the
 * build, so the run stops (exit 3) instead of recording the suggestion as failed.
 */
export class ClusterError extends RefusedError {}
