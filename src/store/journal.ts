// The write-back journal: patch_repair/journal/<id>.json says what an unfinished change to
// patch_generator/<id>/ was going to do, so the next start can finish it or undo it. It is written
// atomically before anything in the suggestion folder changes and removed once the change is done.
import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { JournalSchema, type Journal } from '../formats/run-state.js';
import { isNotFound, syncDir, writeFileAtomic } from './fs-atomic.js';
import { journalDir, journalPath } from './paths.js';

export async function writeJournal(dotDir: string, journal: Journal): Promise<void> {
  await mkdir(journalDir(dotDir), { recursive: true });
  await writeFileAtomic(journalPath(dotDir, journal.id), `${JSON.stringify(JournalSchema.parse(journal), null, 2)}\n`);
}

export async function removeJournal(dotDir: string, id: string): Promise<void> {
  try {
    await unlink(journalPath(dotDir, id));
    await syncDir(journalDir(dotDir));
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/** Every pending journal. One that does not parse was not written by this version: a run-ending fault. */
export async function readJournals(dotDir: string): Promise<Journal[]> {
  let names: string[];
  try {
    names = await readdir(journalDir(dotDir));
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
  const journals: Journal[] = [];
  for (const name of names.sort()) {
    const path = join(journalDir(dotDir), name);
    // Leftover temp files of an atomic write that never got renamed hold nothing committed.
    if (name.startsWith('.')) {
      await unlink(path);
      continue;
    }
    const parsed = JournalSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
    if (!parsed.success) throw new Error(`${path}: not a patch-repair write-back journal: ${parsed.error.message}`);
    journals.push(parsed.data);
  }
  return journals;
}
