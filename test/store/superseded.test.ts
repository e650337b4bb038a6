// superseded/<id>-<time>/ is named in one place: a stale backup moved aside and a generated set an
// interrupted write-back kept get their folders the same way, so two moves in one second never
// share one (the later gets a suffix), whichever kind each is.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { createBackup } from '../../src/store/backup.js';
import { writeJournal } from '../../src/store/journal.js';
import { backupDir } from '../../src/store/paths.js';
import { stagingDir, writeStagedSet } from '../../src/store/staging.js';
import { moveBackupAside, newSupersededFolder, supersededDir } from '../../src/store/superseded.js';
import { recoverWriteBack, restoreLogPath } from '../../src/store/index.js';
import { digestBytes, digestSet } from '../../src/store/patch-set-files.js';
import { makeDotDir, patchText, readFolder, removeDotDir, writeSuggestion } from './helpers.js';

let dotDir = '';
beforeEach(async () => {
  dotDir = await makeDotDir();
  // Every move below happens in the same second.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-12-04T10:00:00.250Z'));
});
afterEach(async () => {
  vi.useRealTimers();
  await removeDotDir(dotDir);
});

const bytes = (text: string) => new Uint8Array(Buffer.from(text));

/** A committed write-back of `id` killed mid-way, after which someone else rewrote the folder and dropped its backup. */
async function killedWriteBackOverwritten(id: string, generated: string): Promise<void> {
  const staging = stagingDir(dotDir, id);
  const before = new Map([['1.patch', bytes(generated)]]);
  const repaired = new Map([['1.patch', bytes(patchText('1', '#pragma omp parallel for reduction(+:sum)'))]]);
  await writeStagedSet(join(staging, 'new'), repaired);
  await writeStagedSet(join(staging, 'before'), before);
  await writeStagedSet(join(staging, 'backup'), before);
  await writeJournal(dotDir, {
    version: 1,
    kind: 'write-back',
    id,
    state: 'committed',
    backup: 'kept',
    files: [...repaired].map(([name, b]) => ({ name, digest: digestBytes(b) })),
    target_digest: digestSet(repaired),
  });
  await writeSuggestion(dotDir, id, { '1.patch': patchText('1', '#pragma omp simd // regenerated') });
}

it('two stale backups of one suggestion moved aside in one second get two folders', async () => {
  const first = patchText('1', '#pragma omp parallel for');
  await writeSuggestion(dotDir, '3', { '1.patch': first });
  await createBackup(dotDir, '3');
  const one = await moveBackupAside(dotDir, '3', 'stale');
  const second = patchText('1', '#pragma omp parallel for shared(a)');
  await writeSuggestion(dotDir, '3', { '1.patch': second });
  await createBackup(dotDir, '3');
  const two = await moveBackupAside(dotDir, '3', 'stale again');

  expect(one).toBe('patch_repair/superseded/3-20261204T100000Z/');
  expect(two).toBe('patch_repair/superseded/3-20261204T100000Z-2/');
  expect(await readFolder(join(dotDir, one!, '3'))).toEqual({ '1.patch': first });
  expect(await readFolder(join(dotDir, two!, '3'))).toEqual({ '1.patch': second });
});

it('a backup moved aside and a generated set a killed write-back kept, in one second, never share a folder', async () => {
  await writeSuggestion(dotDir, '3', { '1.patch': patchText('1', '#pragma omp parallel for') });
  await createBackup(dotDir, '3');
  const moved = await moveBackupAside(dotDir, '3', 'stale');
  expect(await readdir(backupDir(dotDir, '3')).catch(() => null)).toBeNull();

  const generated = patchText('1', '#pragma omp parallel for private(t)');
  await killedWriteBackOverwritten('3', generated);
  const [notice] = await recoverWriteBack(dotDir);

  const folders = (await readdir(supersededDir(dotDir))).sort();
  expect(folders).toEqual(['3-20261204T100000Z', '3-20261204T100000Z-2']);
  expect(moved).toBe('patch_repair/superseded/3-20261204T100000Z/');
  expect(notice).toContain('kept in patch_repair/superseded/3-20261204T100000Z-2/');
  expect(await readFolder(join(supersededDir(dotDir), '3-20261204T100000Z-2', '3'))).toEqual({ '1.patch': generated });
  const log = await readFile(restoreLogPath(dotDir), 'utf8');
  expect(log).toContain('superseded/3-20261204T100000Z/');
  expect(log).toContain('superseded/3-20261204T100000Z-2/');
});

it('names made at once for one suggestion are all different, and an unsafe id is refused', async () => {
  const made = await Promise.all(Array.from({ length: 6 }, () => newSupersededFolder(dotDir, '7')));
  expect(new Set(made.map((m) => m.dir)).size).toBe(6);
  await expect(newSupersededFolder(dotDir, '../elsewhere')).rejects.toThrow(/suggestion id/);
});
