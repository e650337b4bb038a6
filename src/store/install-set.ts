// Makes a suggestion folder hold exactly a given set of files, one atomic rename per file. Used to
// put a backup back; idempotent, so a restore journal can simply run it again after a kill.
import { rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { faultPoint } from '../fault.js';
import { readIfPresent, syncDir, writeFileSynced } from './fs-atomic.js';
import { listSetFiles, listTempFiles, tempNameFor } from './patch-set-files.js';

export async function installSet(dir: string, wanted: ReadonlyMap<string, Uint8Array>): Promise<void> {
  for (const [name, bytes] of wanted) {
    const present = await readIfPresent(join(dir, name));
    if (present !== null && present.equals(bytes)) continue;
    const temp = join(dir, tempNameFor(name));
    await writeFileSynced(temp, bytes);
    await rename(temp, join(dir, name));
    faultPoint('restore.after-file');
  }
  for (const name of await listSetFiles(dir)) if (!wanted.has(name)) await unlink(join(dir, name));
  await removeTempFiles(dir);
  await syncDir(dir);
}

export async function removeTempFiles(dir: string): Promise<void> {
  for (const name of await listTempFiles(dir)) await unlink(join(dir, name));
}

