// Scanning and copying directory trees for build workspaces. A manifest records every entry of a
// tree with its change time, so a later scan tells exactly which entries a build created, deleted
// or wrote: any write, rename or utimes updates ctime, which no process can set back.
import { constants } from 'node:fs';
import { copyFile, lstat, lutimes, mkdir, readdir, readlink, rm, symlink, utimes } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export type EntryKind = 'file' | 'dir' | 'symlink';

export interface Entry {
  kind: EntryKind;
  size: bigint;
  atimeNs: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  /** Link text, for symlinks. */
  link?: string;
}

/** Entries by path relative to the tree root, with forward slashes; the root itself is not listed. */
export type Manifest = Map<string, Entry>;

/** How many file operations run at once; enough to hide latency, few enough to stay under fd limits. */
const PARALLEL_IO = 32;

export async function scanTree(root: string, skip: (abs: string) => boolean = () => false): Promise<Manifest> {
  const manifest: Manifest = new Map();
  const walk = async (dir: string, rel: string): Promise<void> => {
    const names = await readdir(dir);
    await inBatches(names, async (name) => {
      const abs = join(dir, name);
      if (skip(abs)) return;
      const relPath = rel === '' ? name : `${rel}/${name}`;
      const entry = await statEntry(abs);
      // Sockets, fifos and devices are not part of a build's inputs; copying them could block.
      if (!entry) return;
      manifest.set(relPath, entry);
      if (entry.kind === 'dir') await walk(abs, relPath);
    });
  };
  await walk(root, '');
  return manifest;
}

export async function statEntry(abs: string): Promise<Entry | null> {
  const st = await lstat(abs, { bigint: true });
  const times = { size: st.size, atimeNs: st.atimeNs, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs };
  if (st.isDirectory()) return { kind: 'dir', ...times };
  if (st.isFile()) return { kind: 'file', ...times };
  if (st.isSymbolicLink()) return { kind: 'symlink', ...times, link: await readlink(abs) };
  return null;
}

/** Where `materialize` reads the bytes of one file. */
export type SourceOf = (relPath: string) => string;

export interface MaterializeRequest {
  /** Entries to create, with the times they must carry. */
  entries: ReadonlyArray<readonly [string, Entry]>;
  sourceOf: SourceOf;
  toRoot: string;
  /** Absolute roots whose link targets are re-pointed into `toRoot` (the tree the links came from). */
  linkRoots: readonly string[];
}

/**
 * Creates the entries under `toRoot` as byte copies (never hardlinks: a build writing through a
 * link would write the original) with their modification times, so make sees the same ages as in
 * the original tree. Existing entries at those paths are replaced.
 */
export async function materialize(request: MaterializeRequest): Promise<void> {
  const { entries, toRoot } = request;
  const dirs = entries.filter(([, e]) => e.kind === 'dir').sort(([a], [b]) => depth(a) - depth(b));
  for (const [rel] of dirs) {
    const target = join(toRoot, rel);
    const existing = await lstat(target).catch(() => null);
    if (existing && !existing.isDirectory()) await rm(target, { force: true });
    await mkdir(target, { recursive: true });
  }
  const leaves = entries.filter(([, e]) => e.kind !== 'dir');
  await inBatches(leaves, async ([rel, entry]) => {
    const target = join(toRoot, rel);
    await mkdir(dirname(target), { recursive: true });
    // Unlink first: the build may have left a symlink or hardlink here, and copying onto it would
    // write through to whatever it points at.
    await rm(target, { recursive: true, force: true });
    if (entry.kind === 'symlink') {
      await symlink(remapLink(entry.link ?? '', request.linkRoots, toRoot), target);
      await lutimes(target, seconds(entry.atimeNs), seconds(entry.mtimeNs));
    } else {
      await copyFile(request.sourceOf(rel), target, constants.COPYFILE_FICLONE);
      await utimes(target, seconds(entry.atimeNs), seconds(entry.mtimeNs));
    }
  });
  // Directory times last and deepest first: creating their children changed them.
  for (const [rel, entry] of [...dirs].reverse()) {
    await utimes(join(toRoot, rel), seconds(entry.atimeNs), seconds(entry.mtimeNs));
  }
}

/**
 * A link into the tree being copied must point into the copy, or a build could write the
 * original through it; a link leaving the tree keeps pointing at the same place.
 */
function remapLink(link: string, linkRoots: readonly string[], toRoot: string): string {
  if (!isAbsolute(link)) return link;
  for (const root of linkRoots) {
    if (link === root) return toRoot;
    if (link.startsWith(root + sep)) return join(toRoot, link.slice(root.length + 1));
  }
  return link;
}

/** Relative links that climb out of the tree would point elsewhere from the copy: make them absolute. */
export function absolutizeEscapingLinks(manifest: Manifest, fromRoot: string): void {
  for (const [rel, entry] of manifest) {
    if (entry.kind !== 'symlink' || entry.link === undefined || isAbsolute(entry.link)) continue;
    const resolved = resolve(fromRoot, dirname(rel), entry.link);
    const inside = relative(fromRoot, resolved);
    if (inside.startsWith('..') || isAbsolute(inside)) entry.link = resolved;
  }
}

export function seconds(ns: bigint): number {
  return Number(ns) / 1e9;
}

function depth(rel: string): number {
  return rel.split('/').length;
}

async function inBatches<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(PARALLEL_IO, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(runners);
}
