// Byte-and-timestamp snapshots of a project tree, to prove what a run did and did not write.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';

export interface EntrySnapshot {
  digest: string;
  mtimeMs: number;
}

/** Every file and symlink below `root` (relative path → content digest and mtime), minus `skip`. */
export function snapshotTree(
  root: string,
  skip: (relPath: string) => boolean = () => false,
): Map<string, EntrySnapshot> {
  const entries = new Map<string, EntrySnapshot>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const abs = path.join(dir, name);
      const rel = path.relative(root, abs);
      if (skip(rel)) continue;
      const stat = lstatSync(abs);
      if (stat.isDirectory()) walk(abs);
      else {
        const bytes = stat.isSymbolicLink() ? Buffer.from(readlinkSync(abs)) : readFileSync(abs);
        entries.set(rel, { digest: createHash('sha256').update(bytes).digest('hex'), mtimeMs: stat.mtimeMs });
      }
    }
  };
  walk(root);
  return entries;
}

/** Relative paths whose bytes (or, with `mtimes`, timestamps) differ, appeared or disappeared. */
export function changedPaths(
  before: Map<string, EntrySnapshot>,
  after: Map<string, EntrySnapshot>,
  o: { mtimes?: boolean } = {},
): string[] {
  const changed = new Set<string>();
  for (const [rel, entry] of before) {
    const now = after.get(rel);
    if (!now || now.digest !== entry.digest || (o.mtimes && now.mtimeMs !== entry.mtimeMs)) changed.add(rel);
  }
  for (const rel of after.keys()) if (!before.has(rel)) changed.add(rel);
  return [...changed].sort();
}
