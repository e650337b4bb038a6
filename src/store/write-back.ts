// Write-back: the only code that changes patch_generator/<id>/, and only with a verified patch set.
// Order of events, each step durable before the next:
//   journal (prepared) → a stale backup moved aside, the generated set backed up → staging (the new
//   files, the folder as it was, the backup's set) → journal (committed) → backups/<id>.written
//   names the target → renames → re-read and compare → staging and journal removed.
// A kill before the commit leaves the folder untouched (recovery undoes). After it, recovery
// finishes the renames when the backup and .written are as the write-back left them, and otherwise
// (another tool's restore ran in between) puts back what the folder held before. Either way the
// folder holds the generated set or the complete repair, and a backup exists whenever it is the
// repair. .written names the target before the first rename, and nothing is staged inside the
// folder, so DiscoPoP's rule never calls a one-file write-back's backup stale.
import { constants } from 'node:fs';
import { access, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeText } from '../bytes.js';
import { fileProblem, systemErrorCode, systemErrorWords } from '../errors.js';
import { faultPoint } from '../fault.js';
import { STAGING_FOLDER, type PatchSet, type Suggestion } from '../formats/types.js';
import { backupStanding, createBackup, dropBackupDir, removeBackupLeftovers, writeWrittenDigest } from './backup.js';
import { exists, isNotFound, syncDir } from './fs-atomic.js';
import type { Journal } from '../formats/run-state.js';
import { readJournals, removeJournal, writeJournal } from './journal.js';
import { backupDir, journalPath, safeName, suggestionDir } from './paths.js';
import { digestBytes, digestDir, digestSet, patchFileName, readSet } from './patch-set-files.js';
import { removeTempFiles } from './install-set.js';
import { finishRestore } from './restore-one.js';
import { removeStaging, removeStagingLeftovers, stagingDir, writeStagedSet } from './staging.js';
import { moveBackupAside } from './superseded.js';
import { recoverCommitted, rollForwardEarlierVersion } from './write-back-recovery.js';

export type WriteBackResult = WriteBackDone | WriteBackUndone;

export interface WriteBackDone {
  written: true;
  /** patch-repair's labelled digest of the set now in patch_generator/<id>/ (.written holds DiscoPoP's form of it). */
  digest: string;
  /** File ids whose patch file was replaced or added; empty when the set was already in place. */
  changedFiles: string[];
  /** Where a stale backup was moved (patch_repair/superseded/…/), when the write-back found one. */
  superseded: string | null;
}

/**
 * A write-back that could not be done (a read-only patch_generator/, no permission, a full disk,
 * or what was written is not what was verified), and has been undone: patch_generator/<id>/ holds
 * what it held before, no backup or journal of it was left, and the verified repair is still in attempts/.
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
  if (await exists(journalPath(dotDir, id))) {
    throw new Error(
      `${journalPath(dotDir, id)}: an interrupted write-back is pending; recoverWriteBack must run first`,
    );
  }
  const current = await readSet(suggestionDir(dotDir, id));
  const { changes, changedFiles } = changesTo(current, canonical);
  if (changes.size === 0) return { written: true, digest: digestSet(current), changedFiles, superseded: null };

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
  const prepared = await prepareAndCommit(dotDir, journal, changes, current);
  if ('problem' in prepared) return prepared;
  const undone = await renameIntoPlace(dotDir, { ...journal, state: 'committed' }, changes, target);
  if (undone) return undone;
  faultPoint('write-back.before-journal-removed');
  await removeJournal(dotDir, id);
  faultPoint('write-back.after-journal-removed');
  await removeStaging(dotDir, id);
  return { written: true, digest: journal.target_digest, changedFiles, superseded: prepared.superseded };
}

/** The patch files `canonical` changes (by file name) and their file ids, against the folder's set. */
function changesTo(
  current: ReadonlyMap<string, Buffer>,
  canonical: PatchSet,
): { changes: Map<string, Buffer>; changedFiles: string[] } {
  const changes = new Map<string, Buffer>();
  const changedFiles: string[] = [];
  for (const [fileId, text] of canonical) {
    const name = patchFileName(safeName(fileId, 'file id'));
    const bytes = encodeText(text);
    if (current.get(name)?.equals(bytes)) continue;
    changes.set(name, bytes);
    changedFiles.push(fileId);
  }
  return { changes, changedFiles };
}

/**
 * Up to the commit: the journal, a stale backup moved aside and the folder backed up, everything
 * staged, then the journal committed. A failure on the way is undone, and the folder never touched.
 */
async function prepareAndCommit(
  dotDir: string,
  journal: WriteBackJournal,
  changes: ReadonlyMap<string, Buffer>,
  current: ReadonlyMap<string, Buffer>,
): Promise<{ superseded: string | null } | WriteBackUndone> {
  const id = journal.id;
  const dir = suggestionDir(dotDir, id);
  try {
    await writeJournal(dotDir, journal);
  } catch (error) {
    return couldNotWrite(journalPath(dotDir, id), error);
  }
  faultPoint('write-back.after-journal-prepared');
  const staging = stagingDir(dotDir, id);
  let superseded: string | null = null;
  try {
    if (journal.backup === 'created') {
      superseded = await moveBackupAside(
        dotDir,
        id,
        `patch_generator/${id}/ holds neither this backup nor the repair written on top of it (DiscoPoP's rule for a stale backup); a write-back of a verified repair backed up the folder as it is now`,
      );
      await createBackup(dotDir, id);
    }
    faultPoint('write-back.after-backup');
    await writeStagedSet(join(staging, 'new'), changes, () => faultPoint('write-back.after-temp-file'));
    await writeStagedSet(join(staging, 'before'), current);
    await writeStagedSet(join(staging, 'backup'), await readSet(backupDir(dotDir, id)));
    // A folder that cannot take the renames is found now, while undoing only means dropping the staging.
    await access(dir, constants.W_OK);
    faultPoint('write-back.before-commit');
    await writeJournal(dotDir, { ...journal, state: 'committed' });
  } catch (error) {
    await undoPrepared(dotDir, journal);
    return couldNotWrite(failedPath(error, dir), error);
  }
  faultPoint('write-back.after-commit');
  return { superseded };
}

/**
 * After the commit: .written names the target, the staged files are renamed in, and the folder is
 * read back. A failure or a difference is recovered at once (the folder put back as it was);
 * returns null when the folder holds the target.
 */
async function renameIntoPlace(
  dotDir: string,
  journal: WriteBackJournal,
  changes: ReadonlyMap<string, Buffer>,
  target: ReadonlyMap<string, Buffer>,
): Promise<WriteBackUndone | null> {
  const dir = suggestionDir(dotDir, journal.id);
  const staging = stagingDir(dotDir, journal.id);
  try {
    await writeWrittenDigest(dotDir, journal.id, target);
    faultPoint('write-back.after-written');
    for (const name of changes.keys()) {
      await rename(join(staging, 'new', name), join(dir, name));
      faultPoint('write-back.after-rename');
    }
    await syncDir(dir);
  } catch (error) {
    // Some files may be renamed already; recovery puts the folder back as it was. Should that fail
    // too, the committed journal stays and the next start does it.
    await recoverCommitted(dotDir, journal, `the write-back failed: ${systemErrorWords(error)}`, true);
    return couldNotWrite(failedPath(error, dir), error);
  }
  const problem = await compareWithTarget(dir, target);
  if (problem) {
    await recoverCommitted(dotDir, journal, `re-reading the written patch set found ${problem}`, true);
    return { written: false, problem: `${dir}: ${problem} after the write-back`, affectsEveryWrite: false };
  }
  return null;
}

function couldNotWrite(path: string, cause: unknown): WriteBackUndone {
  return {
    written: false,
    problem: fileProblem(path, 'write', cause),
    affectsEveryWrite: ['EROFS', 'ENOSPC', 'EDQUOT', 'EIO'].includes(systemErrorCode(cause) ?? ''),
  };
}

/** Where it failed: the file Node names when it lies outside the suggestion folder and its staging, else that folder. */
function failedPath(error: unknown, dir: string): string {
  const path = (error as NodeJS.ErrnoException | null)?.path;
  return typeof path === 'string' && !path.startsWith(`${dir}/`) && !path.split('/').includes(STAGING_FOLDER)
    ? path
    : dir;
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
      notices.push(
        `suggestion ${id}: an interrupted write-back was undone; patch_generator/${id}/ had not been changed`,
      );
    } else if (await exists(join(stagingDir(dotDir, id), 'before'))) {
      notices.push(await recoverCommitted(dotDir, journal, 'an interrupted write-back', false));
    } else {
      notices.push(await rollForwardEarlierVersion(dotDir, journal));
    }
  }
  await removeBackupLeftovers(dotDir);
  await removeStagingLeftovers(dotDir);
  return notices;
}

async function undoPrepared(dotDir: string, journal: WriteBackJournal): Promise<void> {
  const id = journal.id;
  await removeStaging(dotDir, id);
  await removeTempFiles(suggestionDir(dotDir, id));
  // The backup this write-back made is a copy of the folder, which was never touched; one that
  // differs from the folder is not this write-back's copy and stays.
  if (
    journal.backup === 'created' &&
    (await exists(backupDir(dotDir, id))) &&
    (await digestDir(backupDir(dotDir, id))) === (await digestDir(suggestionDir(dotDir, id)))
  ) {
    await dropBackupDir(dotDir, id);
  }
  await removeJournal(dotDir, id);
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
