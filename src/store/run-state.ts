// patch_repair/run-state.json: what `--resume` needs from a run that did not finish. Written
// atomically after discovery and after every suggestion that finishes, so a SIGKILL leaves the
// state of the last finished step. It moves to history/ with the rest of the run when the next run
// starts, and only the state moved last (the most recent run) can be resumed.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RunStateSchema, StoredRunStateSchema, type RunState, type StoredRunState } from '../formats/resume-state.js';
import { isNotFound, writeFileAtomic } from './fs-atomic.js';
import { repairDir } from './paths.js';

export function runStatePath(dotDir: string): string {
  return join(repairDir(dotDir), 'run-state.json');
}

/** A run's state (of this release's version or the one before), or null when there is none or it cannot be read as one. */
export async function readRunState(file: string): Promise<StoredRunState | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
  try {
    const parsed = StoredRunStateSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Writes the state. Saves are applied in order; one asked for while another waits to start is
 * folded into it (the state is taken when its write starts), so a discovery of hundreds of
 * builds does not rewrite the file hundreds of times over.
 */
export class RunStateWriter {
  private chain: Promise<void> = Promise.resolve();
  private waiting: Promise<void> | null = null;

  constructor(
    private readonly dotDir: string,
    private readonly state: () => RunState,
  ) {}

  save(): Promise<void> {
    if (this.waiting) return this.waiting;
    const write = this.chain.then(() => {
      this.waiting = null;
      return writeFileAtomic(runStatePath(this.dotDir), `${JSON.stringify(RunStateSchema.parse(this.state()))}\n`);
    });
    this.waiting = write;
    this.chain = write.catch(() => undefined);
    return write;
  }
}
