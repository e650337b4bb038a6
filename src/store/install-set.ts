// Makes a suggestion folder hold exactly a given set of files, one atomic rename per file. Each file
// is written in the suggestion's staging folder first (outside patch_generator/<id>/, so DiscoPoP's
// digest of the folder never counts a half-written file). Idempotent, so a journal can simply run it
// again after a kill.
import { rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { faultPoint } from '../fault.js';
import { readIfPresent, syncDir, writeFileSynced } from './fs-atomic.js';
import { listSetFiles, listTempFiles } from './patch-set-files.js';
import { writeStagedSet } from './staging.js';

export async function installSet(dir: string, wanted: ReadonlyMap<string, Uint8Array>, staging: string): Promise<void> {
  const install = join(staging, 'install');
  await writeStagedSet(install, new Map());
  for (const [name, bytes] of wanted) {
    const present = await readIfPresent(join(dir, name));
    if (present !== null && present.equals(bytes)) continue;
    await writeFileSynced(join(install, name), bytes);
    await rename(join(install, name), join(dir, name));
    faultPoint('restore.after-file');
  }
  for (const name of await listSetFiles(dir)) if (!wanted.has(name)) await unlink(join(dir, name));
  await removeTempFiles(dir);
  await syncDir(dir);
}

/** Temp files earlier versions wrote inside the suggestion folder. */
export async function removeTempFiles(dir: string): Promise<void> {
  for (const name of await listTempFiles(dir)) await unlink(join(dir, name));
}
