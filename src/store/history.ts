// Each run starts with a clean patch_repair/: the previous run's results.json, progress.jsonl,
// run-state.json and attempts/ move to history/<its run id>/. The moves are renames, so an
// interrupted rotation is finished by the next start (what is left is moved into the same folder).
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { exists, readTextIfPresent } from './fs-atomic.js';
import { repairDir } from './paths.js';
import { UsageError } from '../errors.js';
import { readResultsFile } from './results-file.js';
import { EventSchema } from '../formats/events.js';

const ROTATED = ['attempts', 'progress.jsonl', 'results.json', 'run-state.json'] as const;

export function historyDir(dotDir: string): string {
  return join(repairDir(dotDir), 'history');
}

/** Rotates the previous run out of the way; returns its run id and folder, or nulls when there was none. */
export async function startRun(
  dotDir: string,
  runId: string,
): Promise<{ previous: string | null; dir: string | null }> {
  const base = repairDir(dotDir);
  const present: string[] = [];
  for (const name of ROTATED) if (await exists(join(base, name))) present.push(name);
  if (present.length === 0) return { previous: null, dir: null };
  const previous = (await previousRunId(base)) ?? `unknown-before-${runId}`;
  const target = await freeTarget(historyDir(dotDir), previous, present);
  await mkdir(target, { recursive: true });
  for (const name of present) await rename(join(base, name), join(target, name));
  return { previous, dir: target };
}

async function previousRunId(base: string): Promise<string | null> {
  try {
    // Either tool's results.json, any format: DiscoPoP's gets an id from when it was written.
    const results = await readResultsFile(join(base, 'results.json'), { dotDir: base });
    if (results) return sanitize(results.run.id);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
  }
  const firstLine = (await readTextIfPresent(join(base, 'progress.jsonl')))?.split('\n', 1)[0];
  if (firstLine) {
    try {
      const event = EventSchema.safeParse(JSON.parse(firstLine));
      if (event.success && event.data.type === 'run-started') return sanitize(event.data.run.id);
    } catch {
      // A torn first line: the run died before it wrote anything useful.
    }
  }
  return null;
}

/** The same run id twice (a copied .discopop) must not overwrite what is already in history. */
async function freeTarget(history: string, id: string, moving: string[]): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = join(history, n === 1 ? id : `${id}-${n}`);
    let clash = false;
    for (const name of moving) if (await exists(join(candidate, name))) clash = true;
    if (!clash) return candidate;
  }
}

function sanitize(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || 'unnamed';
}
