// A suggestion folder as a set of files: what is backed up, digested and restored. Only regular
// files count; the temp files of an unfinished write-back never do.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isNotFound } from './fs-atomic.js';

const TEMP_SUFFIX = '.patch-repair-tmp';

export function tempNameFor(name: string): string {
  return `.${name}${TEMP_SUFFIX}`;
}

export function isTempName(name: string): boolean {
  return name.startsWith('.') && name.endsWith(TEMP_SUFFIX);
}

export function patchFileName(fileId: string): string {
  return `${fileId}.patch`;
}

/** Names of the set's files, sorted; an absent folder is an empty set. */
export async function listSetFiles(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile() && !isTempName(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}

export async function listTempFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter(isTempName);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}

export async function readSet(dir: string): Promise<Map<string, Buffer>> {
  const set = new Map<string, Buffer>();
  for (const name of await listSetFiles(dir)) set.set(name, await readFile(join(dir, name)));
  return set;
}

export function digestBytes(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** One digest for names and bytes together: renaming, adding or removing a file changes it. */
export function digestSet(set: ReadonlyMap<string, Uint8Array>): string {
  const hash = createHash('sha256');
  for (const name of [...set.keys()].sort()) {
    const bytes = set.get(name)!;
    hash.update(`${name}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return `sha256:${hash.digest('hex')}`;
}

export async function digestDir(dir: string): Promise<string> {
  return digestSet(await readSet(dir));
}

/**
 * The digest DiscoPoP's own patch repair tool keeps in backups/<id>.written (`patch_set_digest` in
 * its backups.py): hex SHA-256 over each file's name, a NUL, its bytes and a NUL, in sorted name
 * order. Written in this form, either tool can tell the other's repair from a newer generation.
 */
export function discopopDigest(set: ReadonlyMap<string, Uint8Array>): string {
  const hash = createHash('sha256');
  for (const name of [...set.keys()].sort()) {
    hash.update(`${name}\0`);
    hash.update(set.get(name)!);
    hash.update('\0');
  }
  return hash.digest('hex');
}
