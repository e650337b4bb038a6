// Write-back: the only code that changes patch_generator/<id>/, and only with a verified patch set.
// Order of events, each step durable before the next:
//   journal (prepared) → backup of the generated set → temp files → journal (committed)
//   → renames → re-read and compare → backups/<id>.written → journal removed.
// A kill before the commit leaves the folder untouched (recovery undoes); after it, every new byte
// is already on disk and recovery finishes the renames. Either way the folder holds the generated
// set or the complete repair, and a backup exists whenever it is the repair.
import { constants } from 'node:fs';
import { access, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeText } from '../bytes.js';
import { fileProblem, systemErrorCode, systemErrorWords } from '../errors.js';
import { faultPoint } from '../fault.js';
import type { PatchSet, Suggestion } from '../formats/types.js';
import { backupStanding, createBackup, dropBackupDir, removeBackupLeftovers, removeWrittenDigest, writeWrittenDigest } from './backup.js';
import { exists, isNotFound, readIfPresent, syncDir, writeFileSynced } from './fs-atomic.js';
import type { Journal } from '../formats/run-state.js';
import { readJournals, removeJournal, writeJournal } from './journal.js';
import { journalPath, safeName, suggestionDir } from './paths.js';
import { digestBytes, digestSet, patchFileName, readSet, tempNameFor } from './patch-set-files.js';
import { removeTempFiles } from './install-set.js';
import { finishRestore } from './restore-one.js';

export type WriteBackResult = WriteBackDone | WriteBackUndone;

export interface WriteBackDone {
  written: true;
  /** patch-repair's labelled digest of the set now in patch_generator/<id>/ (.written holds DiscoPoP's form of it). */
  digest: string;
  /** File ids whose patch file was replaced or added; empty when the set was already in place. */
  changedFiles: string[];
}

/**
 * A write-back that could not be done (a read-only patch_generator/, no permission, a full disk,
 * or what was written is not what was verified), and has been undone: patch_generator/<id>/ holds
 * the generated set, no backup or journal of it was left, and the verified repair is still in attempts/.
 */
export interface WriteBackUndone {
  written: false;
  /** In words, naming the file. */
  problem: string;
  /** A cause that every later write-back would meet as well. */
  affectsEveryWrite: boolean;
}

type WriteBackJournal = Extract<Journal, { kind: 'write-back' }>;

export async function writeBack(dotDir: string, suggestion: Suggestion, canonical: PatchSet): Promise<WriteBackResult> {
  const id = suggestion.id;
  const dir = suggestionDir(dotDir, id);
  if (await exists(journalPath(dotDir, id))) {
    throw new Error(`${journalPath(dotDir, id)}: an interrupted write-back is pending; recoverWriteBack must run first`);
  }
  const current = await readSet(dir);
  const changes = new Map<string, Buffer>();
  const changedFiles: string[] = [];
  for (const [fileId, text] of canonical) {
    const name = patchFileName(safeName(fileId, 'file id'));
    const bytes = encodeText(text);
    if (current.get(name)?.equals(bytes)) continue;
    changes.set(name, bytes);
    changedFiles.push(fileId);
  }
  if (changes.size === 0) return { written: true, digest: digestSet(current), changedFiles };

  const target = new Map(current);
  for (const [name, bytes] of changes) target.set(name, bytes);
  const journal: WriteBackJournal = {
    version: 1,
    kind: 'write-back',
    id,
    state: 'prepared',
    // A backup whose standing cannot be told is kept: replacing it could lose the only generated set.
    backup: (await backupStanding(dotDir, id)) === 'stale' ? 'created' : 'kept',
    files: [...changes].map(([name, bytes]) => ({ name, digest: digestBytes(bytes) })),
    target_digest: digestSet(target),
  };
  try {
    await writeJournal(dotDir, journal);
  } catch (error) {
    return couldNotWrite(journalPath(dotDir, id), error);
  }
  faultPoint('write-back.after-journal-prepared');
  try {
    if (journal.backup === 'created') await createBackup(dotDir, id);
    faultPoint('write-back.after-backup');
    for (const [name, bytes] of changes) {
      await writeFileSynced(join(dir, tempNameFor(name)), bytes);
      faultPoint('write-back.after-temp-file');
    }
    await syncDir(dir);
    faultPoint('write-back.before-commit');
    await writeJournal(dotDir, { ...journal, state: 'committed' });
  } catch (error) {
    // Nothing in the folder has changed yet: undone here and now, as the next start would.
    await undoPrepared(dotDir, journal);
    return couldNotWrite(failedPath(error, dir), error);
  }
  faultPoint('write-back.after-commit');

  try {
    for (const name of changes.keys()) {
      await rename(join(dir, tempNameFor(name)), join(dir, name));
      faultPoint('write-back.after-rename');
    }
    await syncDir(dir);
  } catch (error) {
    // Some files may be renamed already; the backup puts the generated set back. Should that fail
    // too, the committed journal stays and the next start finishes the job.
    await undoFromBackup(dotDir, id, `the write-back failed: ${systemErrorWords(error)}`);
    return couldNotWrite(failedPath(error, dir), error);
  }

  const problem = await compareWithTarget(dir, target);
  if (problem) {
    await undoFromBackup(dotDir, id, `re-reading the written patch set found ${problem}`);
    return { written: false, problem: `${dir}: ${problem} after the write-back`, affectsEveryWrite: false };
  }
  faultPoint('write-back.before-written');
  await writeWrittenDigest(dotDir, id, target);
  faultPoint('write-back.after-written');
  await removeJournal(dotDir, id);
  return { written: true, digest: journal.target_digest, changedFiles };
}

function couldNotWrite(path: string, cause: unknown): WriteBackUndone {
  return { written: false, problem: fileProblem(path, 'write', cause), affectsEveryWrite: ['EROFS', 'ENOSPC', 'EDQUOT', 'EIO'].includes(systemErrorCode(cause) ?? '') };
}

/** Where it failed: the file Node names when it lies in the suggestion folder, else that folder. */
function failedPath(error: unknown, dir: string): string {
  const path = (error as NodeJS.ErrnoException | null)?.path;
  return typeof path === 'string' && !path.startsWith(`${dir}/`) ? path : dir;
}

/**
 * Finishes or undoes every write-back and restore a killed run left unfinished. Runs at the start
 * of every run; returns one line per suggestion it dealt with.
 */
export async function recoverWriteBack(dotDir: string): Promise<string[]> {
  const notices: string[] = [];
  for (const journal of await readJournals(dotDir)) {
    const id = journal.id;
    if (journal.kind === 'restore') {
      await finishRestore(dotDir, id);
      notices.push(`suggestion ${id}: finished putting back its generated patch set (${journal.reason})`);
    } else if (journal.state === 'prepared') {
      await undoPrepared(dotDir, journal);
      notices.push(`suggestion ${id}: an interrupted write-back was undone; patch_generator/${id}/ had not been changed`);
    } else {
      notices.push(await rollForward(dotDir, journal));
    }
  }
  await removeBackupLeftovers(dotDir);
  return notices;
}

async function undoPrepared(dotDir: string, journal: WriteBackJournal): Promise<void> {
  await removeTempFiles(suggestionDir(dotDir, journal.id));
  if (journal.backup === 'created') {
    // The folder still holds the generated set; the backup made of it is not needed.
    await dropBackupDir(dotDir, journal.id);
    await removeWrittenDigest(dotDir, journal.id);
  }
  await removeJournal(dotDir, journal.id);
}

async function rollForward(dotDir: string, journal: WriteBackJournal): Promise<string> {
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
  if (digestSet(inPlace) !== journal.target_digest) {
    await undoFromBackup(dotDir, id, 'an interrupted write-back could not be completed');
    return `suggestion ${id}: an interrupted write-back could not be completed; its generated patch set was put back`;
  }
  // The journal keeps patch-repair's labelled digest; .written gets DiscoPoP's form of the same set.
  await writeWrittenDigest(dotDir, id, inPlace);
  await removeJournal(dotDir, id);
  return `suggestion ${id}: completed an interrupted write-back of its verified repair`;
}

/** Returns the generated set from the backup; the restore journal makes this itself survive a kill. */
async function undoFromBackup(dotDir: string, id: string, reason: string): Promise<void> {
  await writeJournal(dotDir, { version: 1, kind: 'restore', id, reason });
  await finishRestore(dotDir, id);
}

async function compareWithTarget(dir: string, target: ReadonlyMap<string, Buffer>): Promise<string | null> {
  const inPlace = await readSet(dir);
  for (const [name, bytes] of target) {
    if (!inPlace.get(name)?.equals(bytes)) return `${name} differs from the verified patch`;
  }
  for (const name of inPlace.keys()) if (!target.has(name)) return `an unexpected file ${name}`;
  return null;
}


/**
 * Suggestion folders a write-back or restore could not write to, one line each: found before any
 * build, so a run that could never write its repairs is refused instead of spending an hour on
 * them, and before a restore, which would otherwise stop half-way.
 */
export async function unwritableSuggestionFolders(dotDir: string, ids: readonly string[]): Promise<string[]> {
  const lines: string[] = [];
  for (const id of ids) {
    const dir = suggestionDir(dotDir, id);
    try {
      await access(dir, constants.W_OK);
    } catch (error) {
      // A folder the generator removed is not written to: a restore only drops its backup.
      if (!isNotFound(error)) lines.push(fileProblem(dir, 'write', error));
    }
  }
  return lines;
}
