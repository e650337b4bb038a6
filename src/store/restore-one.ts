// Puts one backup back into patch_generator/<id>/ and retires it. Callers write a restore journal
// first; every step here is idempotent, so recovery simply runs it again after a kill. The set is
// staged whole before the folder changes: should another tool's restore drop the backup while the
// folder is half restored (its digest then matches nothing), the staged copy still finishes the job.
import { faultPoint } from '../fault.js';
import { dropBackupDir, removeWrittenDigest } from './backup.js';
import { exists } from './fs-atomic.js';
import { installSet } from './install-set.js';
import { removeJournal } from './journal.js';
import { backupDir, suggestionDir } from './paths.js';
import { digestDir, digestSet, readSet } from './patch-set-files.js';
import { readStagedSet, removeStaging, stagingDir, writeStagedSetWhole } from './staging.js';
import { join } from 'node:path';

export async function finishRestore(dotDir: string, id: string): Promise<void> {
  const backup = backupDir(dotDir, id);
  const staging = stagingDir(dotDir, id);
  const stagedPath = join(staging, 'restore');
  let wanted = await readStagedSet(stagedPath);
  // Neither staged nor backed up: the backup was dropped once the folder held its bytes, so the restore was done.
  if (wanted === null && (await exists(backup))) {
    wanted = await readSet(backup);
    await writeStagedSetWhole(stagedPath, wanted);
  }
  if (wanted !== null) {
    const dir = suggestionDir(dotDir, id);
    await installSet(dir, wanted, staging);
    if ((await digestDir(dir)) !== digestSet(wanted)) {
      throw new Error(`${dir}: still differs from ${backup} after putting the backup back; both are left as they are`);
    }
    faultPoint('restore.before-drop-backup');
    await dropBackupDir(dotDir, id);
    faultPoint('restore.after-drop-backup');
  }
  await removeWrittenDigest(dotDir, id);
  await removeJournal(dotDir, id);
  await removeStaging(dotDir, id);
}
