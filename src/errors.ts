// Exceptions are for problems that end the run; expected failures (a build that fails, an
// answer that does not apply) are values. Each class carries the exit code of options.md, taken
// from the one table below.

/**
 * Every exit code of patch-repair, from what ended the run: the composer (a finished run's outcome,
 * pipeline/finish.ts via exitCodeFor), the error classes below (usage, refusal, interrupt), the
 * signal handler's forced exit (interrupt.ts) and cli.ts's last net all read it here.
 */
/**
 * `unfinished`: the reason results.json gives the suggestions a run ended this way did not finish
 * (a value of formats/results.ts REASON_CODES, and its words); null where the run finishes them all
 * or writes no results.json.
 */
export const EXIT_CODES = {
  done: {
    code: 0,
    reason: 'everything considered builds or was repaired (or would be, under --dry-run)',
    unfinished: null,
  },
  unfinished: {
    code: 1,
    reason: 'some suggestion failed, its agent was unreachable, or its verified repair was not written',
    unfinished: null,
  },
  internal: { code: 1, reason: 'an internal error: a bug in patch-repair', unfinished: null },
  usage: { code: 2, reason: 'bad usage or input', unfinished: null },
  refused: {
    code: 3,
    reason: 'the run was refused (applied suggestions, reference build, OpenMP probe, lock)',
    unfinished: { code: 'refused', words: 'not built: the run was refused' },
  },
  cluster: {
    code: 3,
    reason: 'the cluster could not run a build even on fresh job steps',
    unfinished: { code: 'cluster-failed', words: 'the cluster could not run its builds' },
  },
  fatalAgent: {
    code: 4,
    reason: 'a fatal agent error (authentication, quota, misconfiguration) stopped every agent call',
    unfinished: null,
  },
  agentUnavailable: {
    code: 4,
    reason: 'the agent the run would call cannot be started',
    unfinished: { code: 'refused', words: 'not built: the run was refused' },
  },
  SIGINT: { code: 130, reason: 'interrupted by SIGINT', unfinished: { code: 'interrupted', words: 'interrupted' } },
  SIGTERM: { code: 143, reason: 'interrupted by SIGTERM', unfinished: { code: 'interrupted', words: 'interrupted' } },
} as const satisfies Record<
  string,
  { code: number; reason: string; unfinished: { code: string; words: string } | null }
>;
export type ExitReason = keyof typeof EXIT_CODES;

export abstract class PatchRepairError extends Error {
  abstract readonly exitCode: number;
}

/** Bad command line or bad input files: exit 2. The message is one line naming the file. */
export class UsageError extends PatchRepairError {
  readonly exitCode: number = EXIT_CODES.usage.code;
}

/** A precondition refuses the run (applied suggestions, a broken reference build, the lock): exit 3. */
export class RefusedError extends PatchRepairError {
  readonly exitCode: number = EXIT_CODES.refused.code;
}

/**
 * The agent the run would call (named by --backend or a connection, or needed under --no-builtin)
 * cannot be started: refused before any build, with the exit code of a fatal agent error (4).
 */
export class AgentUnavailableError extends RefusedError {
  override readonly exitCode = EXIT_CODES.agentUnavailable.code;
}

/** Raised when SIGINT/SIGTERM asked the run to stop; carries 130 or 143. */
export class InterruptedError extends PatchRepairError {
  constructor(readonly signal: 'SIGINT' | 'SIGTERM') {
    super(`interrupted by ${signal}`);
  }
  get exitCode(): number {
    return EXIT_CODES[this.signal].code;
  }
}

/**
 * The cluster could not run a build even on fresh job steps: a failure of Slurm, not of the
 * build, so the run stops (exit 3) instead of recording the suggestion as failed.
 */
export class ClusterError extends RefusedError {
  override readonly exitCode = EXIT_CODES.cluster.code;
}

/** What ended a started run early and still leaves a results.json: a signal, a refusal, the cluster. */
export const ENDING_REASONS = [
  'SIGINT',
  'SIGTERM',
  'refused',
  'cluster',
  'agentUnavailable',
] as const satisfies readonly ExitReason[];
export type EndingReason = (typeof ENDING_REASONS)[number];

export interface Ending {
  reason: EndingReason;
  /** What the run throws once its results are written: the exit code and the one line printed. */
  error: PatchRepairError;
}

/**
 * How `error` ends a started run, or null when it is no such ending (bad input, a bug): it is
 * rethrown without results. A cancelled build or call rejects with the abort reason rather than
 * InterruptedError: once a signal arrived, whatever rejected, the run was interrupted.
 */
export function endingOf(
  error: unknown,
  interrupt: { readonly received: 'SIGINT' | 'SIGTERM' | undefined },
): Ending | null {
  if (interrupt.received) return { reason: interrupt.received, error: new InterruptedError(interrupt.received) };
  if (error instanceof ClusterError) return { reason: 'cluster', error };
  if (error instanceof AgentUnavailableError) return { reason: 'agentUnavailable', error };
  if (error instanceof RefusedError) return { reason: 'refused', error };
  return null;
}

/**
 * The one table of system error codes in words, used by every reader and writer: a user should
 * read "read-only file system", not EROFS, and never a stack trace for a file they can fix.
 */
const SYSTEM_ERROR_WORDS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a folder, expected a file',
  ENOTDIR: 'a part of the path is not a folder',
  ENOENT: 'does not exist',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error (a failing disk or a lost network mount)',
  ESTALE: 'stale file handle (the network file system lost it)',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  EEXIST: 'already exists',
  ENOTEMPTY: 'folder is not empty',
  EBUSY: 'busy',
  ETXTBSY: 'busy (a running program)',
  EXDEV: 'on another file system',
  EFBIG: 'file too large',
};

/** The code of a system error (`EACCES`…), or undefined for anything else. */
export function systemErrorCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null | undefined)?.code;
  return typeof code === 'string' && code in SYSTEM_ERROR_WORDS ? code : undefined;
}

/** A system error in words: `permission denied`; an unknown code keeps Node's message. */
export function systemErrorWords(error: unknown): string {
  const code = systemErrorCode(error);
  if (code !== undefined) return SYSTEM_ERROR_WORDS[code]!;
  const e = error as NodeJS.ErrnoException | null | undefined;
  return e?.code ? `${e.code} (${e.message})` : String(e?.message ?? error);
}

/**
 * One line naming the path and what is wrong with it: `<path>: cannot read: permission denied`,
 * or `<path>: is a folder, expected a file`, where the words alone say it.
 */
export function fileProblem(path: string, action: string, error: unknown): string {
  return systemErrorCode(error) === 'EISDIR'
    ? `${path}: ${systemErrorWords(error)}`
    : `${path}: cannot ${action}: ${systemErrorWords(error)}`;
}

/** A file that cannot be read or written where the run expects to: bad input, exit 2. */
export class FileError extends UsageError {
  constructor(path: string, action: string, cause: unknown) {
    super(fileProblem(path, action, cause), { cause });
  }
}

/**
 * The last net for a system error no reader turned into a FileError: Node's own error names the
 * path and the call (`open`, `mkdir`…), which is enough for one line in words.
 */
export function asFileError(error: unknown): FileError | undefined {
  const e = error as NodeJS.ErrnoException | null | undefined;
  if (systemErrorCode(error) === undefined || typeof e?.path !== 'string') return undefined;
  return new FileError(e.path, SYSCALL_ACTIONS[e.syscall ?? ''] ?? 'use', error);
}

const SYSCALL_ACTIONS: Readonly<Record<string, string>> = {
  open: 'open',
  read: 'read',
  scandir: 'list',
  opendir: 'list',
  stat: 'access',
  lstat: 'access',
  access: 'access',
  realpath: 'access',
  write: 'write',
  mkdir: 'create',
  mkdtemp: 'create a folder in',
  rename: 'rename',
  unlink: 'remove',
  rmdir: 'remove',
  rm: 'remove',
  link: 'link',
  copyfile: 'copy',
  fsync: 'write',
  utime: 'set the time of',
  chmod: 'change the mode of',
};
