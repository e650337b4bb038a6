// What became of a run's write-backs: a run's record says what it wrote, but the patch sets on
// disk may have moved on since (--restore, the generator run again, a later repair). Each written
// suggestion is checked against the digest its `written` event recorded.
import { readFile } from 'node:fs/promises';
import type { RunEvent } from '../formats/events.js';
import { join } from 'node:path';
import { exists, isNotFound } from '../store/fs-atomic.js';
import { digestSet, readSet } from '../store/patch-set-files.js';
import { readWrittenDigest, restoreLogPath, writtenNames } from '../store/index.js';
import { suggestionDir } from '../store/paths.js';

export type SinceKind = 'restored since' | 'repaired again since' | 'patch regenerated since';

/** Per suggestion this run wrote whose patch set on disk is no longer what it wrote: what happened. */
export async function changedSince(
  dotDir: string,
  events: readonly RunEvent[],
  started: string,
): Promise<Map<string, SinceKind>> {
  const written = new Map<string, string>();
  for (const event of events) if (event.type === 'written') written.set(event.id, event.digest);
  const since = new Map<string, SinceKind>();
  // Without patch_generator/ (a .discopop copied without it) there is nothing on disk to compare.
  if (written.size === 0 || !(await exists(join(dotDir, 'patch_generator')))) return since;
  const restoredAfterStart = await restoredIds(dotDir, started);
  for (const [id, digest] of written) {
    const now = await readSet(suggestionDir(dotDir, id));
    if (digestSet(now) === digest) continue;
    // A later repair of the same suggestion leaves its own digest beside its backup.
    if (writtenNames(await readWrittenDigest(dotDir, id), now)) since.set(id, 'repaired again since');
    else if (restoredAfterStart.has(id)) since.set(id, 'restored since');
    else since.set(id, 'patch regenerated since');
  }
  return since;
}

/** Ids restore.log names as restored after `started` (its lines: `<ISO time> restored <id>: …`). */
async function restoredIds(dotDir: string, started: string): Promise<Set<string>> {
  let text: string;
  try {
    text = await readFile(restoreLogPath(dotDir), 'utf8');
  } catch (error) {
    if (isNotFound(error)) return new Set();
    throw error;
  }
  const ids = new Set<string>();
  for (const line of text.split('\n')) {
    const match = /^(\S+) restored (\S+?):/.exec(line);
    if (match && match[1]! > started) ids.add(match[2]!);
  }
  return ids;
}
