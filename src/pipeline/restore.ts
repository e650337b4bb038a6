// --restore: every backed-up patch set put back, under the lock and the applied-suggestions guard.
import { readApplied } from '../discopop/applied.js';
import { refuseIfApplied } from '../discopop/index.js';
import { Problems } from '../discopop/problems.js';
import { RefusedError } from '../errors.js';
import type { Reporter } from '../report/reporter.js';
import type { RunOptions } from '../formats/run-options.js';
import { acquireLock, listBackups, restoreAll, unwritableSuggestionFolders } from '../store/index.js';

export async function restore(options: RunOptions, reporter: Reporter): Promise<number> {
  const lock = await acquireLock(options.dotDir);
  try {
    if (lock.notice) reporter.notice(lock.notice);
    const problems = new Problems();
    const applied = await readApplied({ dotDir: options.dotDir, problems });
    problems.throwIfAny();
    refuseIfApplied({ dotDir: options.dotDir, applied });
    const unwritable = await unwritableSuggestionFolders(options.dotDir, await listBackups(options.dotDir));
    if (unwritable.length > 0)
      throw new RefusedError(
        [
          ...unwritable,
          'their backups cannot be put back there; make the folders writable and run --restore again',
        ].join('\n'),
      );
    const summary = await restoreAll(options.dotDir);
    reporter.print(summary.line);
    return 0;
  } finally {
    await lock.release();
  }
}
