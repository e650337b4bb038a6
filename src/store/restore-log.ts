// patch_repair/restore.log: one line per action taken on a backup (restored, dropped, left alone,
// a .written digest rewritten), so a user can tell afterwards what happened to a patch set.
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { repairDir } from './paths.js';

export function restoreLogPath(dotDir: string): string {
  return join(repairDir(dotDir), 'restore.log');
}

export async function appendRestoreLog(dotDir: string, text: string): Promise<void> {
  await mkdir(repairDir(dotDir), { recursive: true });
  await appendFile(restoreLogPath(dotDir), `${new Date().toISOString()} ${text}\n`);
}
