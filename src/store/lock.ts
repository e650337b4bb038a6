// One run per .discopop: the lock file patch_repair/run.lock names its holder. It is created with
// link(2), which fails atomically when the name exists, so two starting runs can never both win.
// A lock whose holder is gone (killed run, or another host) is taken over with a notice.
import { access, link, mkdir, readFile, unlink } from 'node:fs/promises';
import { constants, unlinkSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LockFileSchema, type LockFile } from '../formats/run-state.js';
import { RefusedError, systemErrorWords } from '../errors.js';
import { writeFileSynced, isNotFound } from './fs-atomic.js';
import { isLiveOnThisHost, thisOwner } from './process-alive.js';
import { repairDir } from './paths.js';

export interface RunLock {
  /** Set when a lock left by a dead run was taken over; the caller shows it. */
  notice: string | null;
  release(): Promise<void>;
}

export function lockPath(dotDir: string): string {
  return join(repairDir(dotDir), 'run.lock');
}

export async function acquireLock(dotDir: string): Promise<RunLock> {
  const path = lockPath(dotDir);
  await ensureWritableRepairDir(dotDir);
  const mine: LockFile = { ...thisOwner(), started: new Date().toISOString() };
  const content = `${JSON.stringify(mine)}\n`;
  const candidate = `${path}.${process.pid}.new`;
  await writeFileSynced(candidate, content);
  try {
    let notice: string | null = null;
    if (!(await tryLink(candidate, path))) {
      const holder = await readHolder(path);
      if (holder && isLiveOnThisHost(holder)) throw heldBy(path, holder);
      await takeOver(path, candidate);
      notice = takeOverNotice(holder);
    }
    return holdLock(path, content, notice);
  } finally {
    await unlink(candidate).catch(() => undefined);
  }
}

/**
 * Every run writes its results, progress and backups to patch_repair/, --dry-run and
 * --discover-only included; a .discopop where that folder cannot be made or written is refused
 * before anything starts. mkdir is deliberately not recursive: on a read-only mount a recursive
 * mkdir reports ENOENT, which would blame a folder that is there.
 */
async function ensureWritableRepairDir(dotDir: string): Promise<void> {
  const dir = repairDir(dotDir);
  try {
    await mkdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new RefusedError(
        `${dotDir}: cannot create patch_repair/ (where results, progress and backups go): ${systemErrorWords(error)}`,
      );
    }
  }
  try {
    await access(dir, constants.W_OK);
  } catch (error) {
    throw new RefusedError(
      `${dotDir}: cannot write to patch_repair/ (where results, progress and backups go): ${systemErrorWords(error)}`,
    );
  }
}

function heldBy(path: string, holder: LockFile): RefusedError {
  return new RefusedError(
    `${path}: held by pid ${holder.pid} (running since ${holder.started}); another patch-repair run is using this .discopop`,
  );
}

function takeOverNotice(holder: LockFile | null): string {
  if (!holder) return 'took over an unreadable lock file left by an earlier run';
  if (holder.host !== thisOwner().host) {
    // Its pid cannot be checked from here; a shared .discopop used from two nodes at once is the user's call.
    return `took over the lock of pid ${holder.pid} on host ${holder.host} (since ${holder.started}); if that run is still active, stop one of the two`;
  }
  return `took over the lock of an earlier run that is gone (pid ${holder.pid}, since ${holder.started})`;
}

async function tryLink(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

async function readHolder(path: string): Promise<LockFile | null> {
  try {
    const parsed = LockFileSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Replaces a dead holder's lock with ours. Several runs may judge it dead at once, so only the one
 * that creates the take-over guard (link(2), atomic) may touch the lock, and it looks again under
 * the guard: a run that took over first holds a live lock by then, and the others are refused.
 * Renaming the lock aside instead leaves a moment with no lock, in which a third run can win too.
 */
async function takeOver(path: string, candidate: string): Promise<void> {
  const guard = `${path}.takeover`;
  if (!(await tryLink(candidate, guard))) {
    const other = await readHolder(guard);
    if (other && other.host === thisOwner().host && !isLiveOnThisHost(other)) {
      throw new RefusedError(`${guard}: left by pid ${other.pid}, which is gone; remove this file and start again`);
    }
    throw new RefusedError(`${path}: another patch-repair run took the lock at the same moment`);
  }
  try {
    const current = await readHolder(path);
    if (current && isLiveOnThisHost(current)) throw heldBy(path, current);
    await unlink(path).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
    if (!(await tryLink(candidate, path))) {
      throw new RefusedError(`${path}: another patch-repair run took the lock at the same moment`);
    }
  } finally {
    await unlink(guard).catch(() => undefined);
  }
}

function holdLock(path: string, content: string, notice: string | null): RunLock {
  // A run that ends through process.exit (a signal handler) never reaches the caller's finally;
  // the exit hook still removes the lock, synchronously, as exit handlers must.
  const onExit = () => releaseSync(path, content);
  process.once('exit', onExit);
  let released = false;
  return {
    notice,
    async release() {
      if (released) return;
      released = true;
      process.removeListener('exit', onExit);
      releaseSync(path, content);
    },
  };
}

function releaseSync(path: string, content: string): void {
  try {
    // Never remove a lock that another run has taken over in the meantime.
    if (readFileSync(path, 'utf8') === content) unlinkSync(path);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
