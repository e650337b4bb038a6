// Recovery of a committed write-back (journal/<id>.json says committed; the staging folder holds
// the new files not yet renamed in, the folder as it was, and the backup's set). Another tool may
// have run in between: DiscoPoP's --restore puts the backup back and removes .written, and drops a
// backup whose folder matches neither (a half-written folder). So the renames are finished only
// when the backup and .written are still as the write-back left them; otherwise the folder gets back
// what it held before, and a backup that is gone is made again from the staged copy. A folder that
// holds neither the old nor the new bytes was changed by someone else and is left alone.
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Journal } from '../formats/run-state.js';
import {
  dropBackupDir,
  installBackup,
  readWrittenDigest,
  removeWrittenDigest,
  writeWrittenDigest,
  writtenNames,
} from './backup.js';
import { exists, readIfPresent, syncDir } from './fs-atomic.js';
import { installSet, removeTempFiles } from './install-set.js';
import { removeJournal, writeJournal } from './journal.js';
import { backupDir, suggestionDir } from './paths.js';
import { digestBytes, digestSet, readSet, tempNameFor } from './patch-set-files.js';
import { finishRestore } from './restore-one.js';
import { readStagedSet, removeStaging, stagingDir, writeStagedSetWhole } from './staging.js';
import { newSupersededFolder } from './superseded.js';
import { appendRestoreLog } from './restore-log.js';

type WriteBackJournal = Extract<Journal, { kind: 'write-back' }>;

/**
 * `what` says in words what is being recovered; `immediate` is true when the write-back itself
 * failed half-way: then it is always undone, whatever the folder holds, since only this process
 * has touched it. Returns the line for the terminal.
 */
export async function recoverCommitted(
  dotDir: string,
  journal: WriteBackJournal,
  what: string,
  immediate: boolean,
): Promise<string> {
  const id = journal.id;
  const dir = suggestionDir(dotDir, id);
  const staging = stagingDir(dotDir, id);
  const before = (await readStagedSet(join(staging, 'before')))!;
  const generated = (await readStagedSet(join(staging, 'backup'))) ?? before;
  const newDigest = new Map(journal.files.map((file) => [file.name, file.digest]));
  const inPlace = await readSet(dir);
  const names = new Set([...inPlace.keys(), ...before.keys(), ...newDigest.keys()]);
  const digestOf = (bytes: Uint8Array | undefined) => (bytes === undefined ? null : digestBytes(bytes));
  const ours = [...names].every((name) => {
    const now = digestOf(inPlace.get(name));
    const old = digestOf(before.get(name));
    return now === old || now === (newDigest.get(name) ?? old);
  });
  const backupThere = await exists(backupDir(dotDir, id));

  if (!immediate && !ours) {
    // The generator (or another tool) rewrote the folder after the kill: not ours to touch. The
    // staged generated set is kept when no backup holds it any more.
    let kept = '';
    if (!backupThere)
      kept = `; the generated set it had backed up is kept in ${await keepStagedGenerated(dotDir, id, generated)}`;
    await removeJournal(dotDir, id);
    await removeStaging(dotDir, id);
    return `suggestion ${id}: ${what} was not finished: patch_generator/${id}/ has changed since, and is left as it is${kept}`;
  }

  const target = immediate ? null : await targetOf(dir, staging, journal, before);
  if (backupThere && target !== null && writtenNames(await readWrittenDigest(dotDir, id), target)) {
    for (const file of journal.files) {
      const present = await readIfPresent(join(dir, file.name));
      if (present === null || digestBytes(present) !== file.digest)
        await rename(join(staging, 'new', file.name), join(dir, file.name));
    }
    await syncDir(dir);
    if (digestSet(await readSet(dir)) === journal.target_digest) {
      await removeJournal(dotDir, id);
      await removeStaging(dotDir, id);
      return `suggestion ${id}: completed ${what} of its verified repair`;
    }
  }

  // Undo: .written first, so that a kill from here on chooses the undo again.
  const beforeIsGenerated = digestSet(before) === digestSet(generated);
  if (beforeIsGenerated) await removeWrittenDigest(dotDir, id);
  else await writeWrittenDigest(dotDir, id, before);
  await installSet(dir, before, staging);
  if (!backupThere && !beforeIsGenerated) await installBackup(dotDir, id, generated);
  // A backup this write-back made is a copy of the folder it has just put back.
  if (
    backupThere &&
    beforeIsGenerated &&
    journal.backup === 'created' &&
    digestSet(await readSet(backupDir(dotDir, id))) === digestSet(before)
  )
    await dropBackupDir(dotDir, id);
  await removeJournal(dotDir, id);
  await removeStaging(dotDir, id);
  const cause = immediate
    ? ''
    : !backupThere
      ? " (its backup was gone: another tool's restore dropped it)"
      : ' (another tool restored the suggestion, or the kill came before any file changed)';
  return `suggestion ${id}: ${what} was undone${cause}; patch_generator/${id}/ holds what it held before`;
}

/** The set the write-back was making, from the bytes in place or staged; null when a file is in neither. */
async function targetOf(
  dir: string,
  staging: string,
  journal: WriteBackJournal,
  before: ReadonlyMap<string, Buffer>,
): Promise<Map<string, Buffer> | null> {
  const target = new Map(before);
  for (const file of journal.files) {
    const present = await readIfPresent(join(dir, file.name));
    const bytes =
      present !== null && digestBytes(present) === file.digest
        ? present
        : await readIfPresent(join(staging, 'new', file.name));
    if (bytes === null || digestBytes(bytes) !== file.digest) return null;
    target.set(file.name, bytes);
  }
  return target;
}

async function keepStagedGenerated(
  dotDir: string,
  id: string,
  generated: ReadonlyMap<string, Uint8Array>,
): Promise<string> {
  const { dir, shown } = await newSupersededFolder(dotDir, id);
  await writeStagedSetWhole(join(dir, id), generated);
  await appendRestoreLog(
    dotDir,
    `kept the generated set of ${id} that an interrupted write-back had staged in ${shown}: patch_generator/${id}/ was changed by someone else and its backup is gone`,
  );
  return shown;
}

/**
 * A committed journal an earlier version left: its temp files are inside the folder and nothing
 * else was staged. Finishes the renames, or puts the backup back when that is not possible.
 */
export async function rollForwardEarlierVersion(dotDir: string, journal: WriteBackJournal): Promise<string> {
  const id = journal.id;
  const dir = suggestionDir(dotDir, id);
  for (const file of journal.files) {
    const temp = join(dir, tempNameFor(file.name));
    const staged = await readIfPresent(temp);
    if (staged !== null && digestBytes(staged) === file.digest) await rename(temp, join(dir, file.name));
  }
  await removeTempFiles(dir);
  await syncDir(dir);
  const inPlace = await readSet(dir);
  if (digestSet(inPlace) !== journal.target_digest || !(await exists(backupDir(dotDir, id)))) {
    if (!(await exists(backupDir(dotDir, id)))) {
      await removeJournal(dotDir, id);
      return `suggestion ${id}: an interrupted write-back of an earlier version could not be checked: its backup is gone; patch_generator/${id}/ is left as it is`;
    }
    await writeJournal(dotDir, {
      version: 1,
      kind: 'restore',
      id,
      reason: 'an interrupted write-back could not be completed',
    });
    await finishRestore(dotDir, id);
    return `suggestion ${id}: an interrupted write-back could not be completed; its generated patch set was put back`;
  }
  await writeWrittenDigest(dotDir, id, inPlace);
  await removeJournal(dotDir, id);
  return `suggestion ${id}: completed an interrupted write-back of its verified repair`;
}
