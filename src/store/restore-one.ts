// Puts one backup back into patch_generator/<id>/ and retires it. Callers write a restore journal
// first; every step here is idempotent, so recovery simply runs it again after a kill.
import { faultPoint } from '../fault.js';
import { dropBackupDir, removeWrittenDigest } from './backup.js';
import { exists } from './fs-atomic.js';
import { installSet } from './install-set.js';
import { removeJournal } from './journal.js';
import { backupDir, suggestionDir } from './paths.js';
import { digestDir, digestSet, readSet } from './patch-set-files.js';

export async function finishRestore(dotDir: string, id: string): Promise<void> {
  const backup = backupDir(dotDir, id);
  // The backup is only dropped after the folder holds its bytes: gone means the restore was done.
  if (await exists(backup)) {
    const wanted = await readSet(backup);
    const dir = suggestionDir(dotDir, id);
    await installSet(dir, wanted);
    if ((await digestDir(dir)) !== digestSet(wanted)) {
      throw new Error(`${dir}: still differs from ${backup} after putting the backup back; both are left as they are`);
    }
    faultPoint('restore.before-drop-backup');
    await dropBackupDir(dotDir, id);
    faultPoint('restore.after-drop-backup');
  }
  await removeWrittenDigest(dotDir, id);
  await removeJournal(dotDir, id);
}
