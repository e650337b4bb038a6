// The only module that starts processes. Every child gets its own process group so that a
// timeout or an interrupt ends the whole tree (compile.sh → make → gcc, or an agent CLI and its
// helpers), not just the direct child.
import { access, constants, readdir } from 'node:fs/promises';
import { delimiter, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { execa } from 'execa';
import { decodeBytes } from './bytes.js';

/**
 * The executables in the folders of `searchPath` whose name `wanted` accepts, each by name with
 * the path the shell would run (the first folder's wins). A folder that cannot be read adds none;
 * a file without the execute bit is no command. The one PATH scan: the agent CLIs and the bare
 * clang of the settings are found the same way.
 */
export async function executablesOnPath(
  searchPath: string,
  wanted: (name: string) => boolean,
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const dir of searchPath.split(delimiter)) {
    if (dir === '') continue;
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (found.has(name) || !wanted(name)) continue;
      if (await isExecutable(join(dir, name))) found.set(name, join(dir, name));
    }
  }
  return found;
}

/** Where `command` runs from: itself when it names a path, else the first executable of that name on `searchPath`; null when none. */
export async function findExecutable(command: string, searchPath: string): Promise<string | null> {
  if (command.includes('/')) return (await isExecutable(resolve(command))) ? resolve(command) : null;
  return (await executablesOnPath(searchPath, (name) => name === command)).get(command) ?? null;
}

async function isExecutable(file: string): Promise<boolean> {
  return access(file, constants.X_OK).then(
    () => true,
    () => false,
  );
}

export interface RunRequest {
  command: string;
  args?: readonly string[];
  cwd: string;
  /** Added to (or, with `extendEnv: false`, replacing) the parent environment. */
  env?: Record<string, string | undefined>;
  extendEnv?: boolean;
  /** Fed to stdin, which is then closed; without it stdin is closed at once. */
  input?: string;
  timeoutMs?: number;
  /**
   * When set, the timeout counts from the moment stdout first carries this text instead of from
   * the start: a process that waits in a queue (srun) is not yet running what the limit is for.
   */
  timeoutStartsOn?: string;
  /** Output beyond this many bytes per stream is dropped and `truncated` is set. */
  maxOutputBytes?: number;
  signal?: AbortSignal;
  /** How long a process may take to exit after SIGTERM before it gets SIGKILL. */
  graceMs?: number;
  /**
   * For a process that is ended by telling someone else (srun ends once Slurm cancelled its job):
   * on the timeout or an abort `ask` is called instead of sending SIGTERM, which follows only if
   * the process is still there `waitMs` later.
   */
  askToEnd?: { ask: () => void; waitMs: number };
}

interface Captured {
  stdout: string;
  stderr: string;
  truncated: boolean;
  durationMs: number;
}

export type RunOutcome =
  | ({ kind: 'exited'; exitCode: number } & Captured)
  | ({ kind: 'signaled'; signal: string } & Captured)
  | ({ kind: 'timeout' } & Captured)
  | ({ kind: 'canceled' } & Captured)
  | { kind: 'spawn-failed'; message: string; durationMs: number };

const DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024;
const DEFAULT_GRACE_MS = 3000;

const liveGroups = new Set<number>();

/** Process groups still running; the interrupt handler kills them before the run exits. */
export function killAllProcessGroups(signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const pgid of liveGroups) killGroup(pgid, signal);
}

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is already gone.
  }
}

export async function runProcess(request: RunRequest): Promise<RunOutcome> {
  const started = Date.now();
  let child;
  try {
    child = execa(request.command, request.args ?? [], {
      cwd: request.cwd,
      env: request.env,
      extendEnv: request.extendEnv ?? true,
      input: request.input,
      stdin: request.input === undefined ? 'ignore' : 'pipe',
      detached: true,
      reject: false,
      stripFinalNewline: false,
      encoding: 'utf8',
      buffer: false,
      cleanup: true,
    });
  } catch (error) {
    return { kind: 'spawn-failed', message: String((error as Error).message), durationMs: Date.now() - started };
  }
  const output = captureOutput(child.stdout, child.stderr, request.maxOutputBytes ?? DEFAULT_MAX_OUTPUT);
  const pgid = child.pid;
  if (pgid !== undefined) liveGroups.add(pgid);
  const limits = endOnTimeoutOrAbort(pgid, child.stdout, request);

  const result = await child;
  limits.release();
  if (pgid !== undefined) {
    // Grandchildren may outlive the direct child (a backgrounded helper); never leave them behind.
    killGroup(pgid, 'SIGKILL');
    liveGroups.delete(pgid);
  }

  const durationMs = Date.now() - started;
  const ending = limits.ending();
  if (result.failed && result.exitCode === undefined && result.signal === undefined && !ending) {
    return {
      kind: 'spawn-failed',
      message: result.originalMessage ?? result.shortMessage ?? 'unknown error',
      durationMs,
    };
  }
  const captured: Captured = { ...output.text(), durationMs };
  if (ending) return { kind: ending, ...captured };
  if (result.exitCode === undefined) return { kind: 'signaled', signal: result.signal ?? 'unknown', ...captured };
  return { kind: 'exited', exitCode: result.exitCode, ...captured };
}

/** Keeps up to `maxBytes` of each stream; what is dropped beyond that sets `truncated`. */
function captureOutput(
  stdout: Readable | null | undefined,
  stderr: Readable | null | undefined,
  maxBytes: number,
): { text(): Omit<Captured, 'durationMs'> } {
  const out = { stdout: [] as Buffer[], stderr: [] as Buffer[], size: { stdout: 0, stderr: 0 }, truncated: false };
  const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer | string) => {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const room = maxBytes - out.size[stream];
    if (room <= 0) {
      out.truncated = true;
      return;
    }
    const kept = buffer.length > room ? buffer.subarray(0, room) : buffer;
    if (kept.length < buffer.length) out.truncated = true;
    out[stream].push(kept);
    out.size[stream] += kept.length;
  };
  stdout?.on('data', collect('stdout'));
  stderr?.on('data', collect('stderr'));
  return {
    text: () => ({
      stdout: decodeBytes(Buffer.concat(out.stdout)),
      stderr: decodeBytes(Buffer.concat(out.stderr)),
      truncated: out.truncated,
    }),
  };
}

/**
 * Ends the process group on the request's timeout (counted from the start, or from the marker on
 * stdout) or on its abort signal: SIGTERM, or the `askToEnd` call first, then SIGKILL after the
 * grace period. `ending` says which of the two ended it; `release` stops watching once it exited.
 */
function endOnTimeoutOrAbort(
  pgid: number | undefined,
  stdout: Readable | null | undefined,
  request: RunRequest,
): { ending(): 'timeout' | 'canceled' | undefined; release(): void } {
  let ending: 'timeout' | 'canceled' | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  const signalGroup = () => {
    if (pgid === undefined) return;
    killGroup(pgid, 'SIGTERM');
    // opencode has been seen ignoring the first SIGTERM; the grace period ends in SIGKILL.
    killTimer = setTimeout(() => killGroup(pgid, 'SIGKILL'), request.graceMs ?? DEFAULT_GRACE_MS);
  };
  const terminate = (why: 'timeout' | 'canceled') => {
    if (ending || pgid === undefined) return;
    ending = why;
    if (!request.askToEnd) return signalGroup();
    request.askToEnd.ask();
    killTimer = setTimeout(signalGroup, request.askToEnd.waitMs);
  };
  let timeoutTimer: NodeJS.Timeout | undefined;
  const startTimeout = () => {
    if (request.timeoutMs !== undefined && !timeoutTimer)
      timeoutTimer = setTimeout(() => terminate('timeout'), request.timeoutMs);
  };
  if (request.timeoutStartsOn === undefined) startTimeout();
  else onMarker(stdout, request.timeoutStartsOn, startTimeout);
  const onAbort = () => terminate('canceled');
  if (request.signal?.aborted) onAbort();
  request.signal?.addEventListener('abort', onAbort, { once: true });
  return {
    ending: () => ending,
    release: () => {
      if (timeoutTimer) clearTimeout(timeoutTimer);
      request.signal?.removeEventListener('abort', onAbort);
      if (killTimer) clearTimeout(killTimer);
    },
  };
}

/** Calls `seen` once, when stdout first carries `marker`. */
function onMarker(stdout: Readable | null | undefined, marker: string, seen: () => void): void {
  // The marker may arrive split across chunks; keep just enough of the stream to see it whole.
  let tail = '';
  const watch = (chunk: Buffer | string) => {
    const text = tail + chunk.toString();
    if (text.includes(marker)) {
      stdout?.off('data', watch);
      seen();
    }
    tail = text.slice(Math.max(0, text.length - marker.length + 1));
  };
  stdout?.on('data', watch);
}

/** One line saying why a process did not succeed, for diagnostics and logs. */
export function describeOutcome(outcome: RunOutcome): string {
  switch (outcome.kind) {
    case 'exited':
      return `exited with code ${outcome.exitCode}`;
    case 'signaled':
      return `killed by ${outcome.signal}`;
    case 'timeout':
      return `timed out after ${Math.round(outcome.durationMs / 1000)} s`;
    case 'canceled':
      return 'canceled';
    case 'spawn-failed':
      return `could not be started: ${outcome.message}`;
  }
}
