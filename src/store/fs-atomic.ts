// File operations that survive a SIGKILL or a power cut at any instant: content goes to a temp file
// in the same folder, is flushed, and is renamed over the target, so a reader sees the old bytes or
// the new ones, never a mix.
import { open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  await writeFileSynced(temp, data);
  await rename(temp, path);
  await syncDir(dirname(path));
}

/** Writes and flushes to disk; the caller decides when the file becomes visible under its name. */
export async function writeFileSynced(path: string, data: string | Uint8Array): Promise<void> {
  const handle = await open(path, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes a rename or unlink in `dir` durable; a rename is only atomic on disk once its folder is flushed. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

export async function removeTree(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
}

export function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/** The file's bytes, or null when it does not exist. */
export async function readIfPresent(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** The file as UTF-8 text, or null when it does not exist. */
export async function readTextIfPresent(path: string): Promise<string | null> {
  return (await readIfPresent(path))?.toString('utf8') ?? null;
}

/** The folder's entry names, or none when it does not exist. */
export async function listIfPresent(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}
