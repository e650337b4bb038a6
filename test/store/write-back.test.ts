// What a user relies on from write-back and --restore when nothing is interrupted: only changed
// files are replaced, the backup is the generated set, a regenerated suggestion is never
// overwritten by --restore, and every restore action is logged.
import { readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { digestSet, discopopDigest, readSet } from '../../src/store/patch-set-files.js';
import {
  digestDir,
  restoreAll,
  restoreLogPath,
  writeBack,
  type WriteBackDone,
  type WriteBackResult,
} from '../../src/store/index.js';
import type { PatchSet, Suggestion } from '../../src/formats/types.js';
import {
  assertDistIsFresh,
  describeRun,
  makeDotDir,
  patchText,
  readFolder,
  removeDotDir,
  runChild,
  writeSuggestion,
} from './helpers.js';

let dotDir = '';
beforeAll(assertDistIsFresh);
afterEach(async () => removeDotDir(dotDir));

const suggestion = (id: string): Suggestion => ({
  id,
  dir: join(dotDir, 'patch_generator', id),
  files: [],
  pattern: null,
  hotspot: null,
});
const folder = (id: string) => join(dotDir, 'patch_generator', id);
const backups = () => join(dotDir, 'patch_repair', 'backups');

/** A write-back the test expects to be done. */
async function written(id: string, canonical: PatchSet): Promise<WriteBackDone> {
  const result = await writeBack(dotDir, suggestion(id), canonical);
  if (!result.written) throw new Error(result.problem);
  return result;
}

const generated = {
  '1.patch': patchText('1', '#pragma omp parallel for private(i) reduction(+:sum) '),
  '2.patch': patchText('2', '#pragma omp parallel for '),
};
const fixed1 = patchText('1', '#pragma omp parallel for reduction(+:sum) ');

it('replaces only the files the repair changed, backs up the generated set and records the digest', async () => {
  dotDir = await makeDotDir();
  await writeSuggestion(dotDir, '4', generated);
  const untouched = await stat(join(folder('4'), '2.patch'));

  const result = await written(
    '4',
    new Map([
      ['1', fixed1],
      ['2', generated['2.patch']],
    ]),
  );

  expect(result.changedFiles).toEqual(['1']);
  expect(await readFolder(folder('4'))).toEqual({ '1.patch': fixed1, '2.patch': generated['2.patch'] });
  expect((await stat(join(folder('4'), '2.patch'))).ino).toBe(untouched.ino);
  expect(await readFolder(join(backups(), '4'))).toEqual(generated);
  // .written in DiscoPoP's digest form, so its own patch repair tool recognises the repair.
  expect((await readFile(join(backups(), '4.written'), 'utf8')).trim()).toBe(
    discopopDigest(await readSet(folder('4'))),
  );
  expect(result.digest).toBe(digestSet(await readSet(folder('4'))));
  expect(result.digest).toBe(await digestDir(folder('4')));
  expect(await readFolder(join(dotDir, 'patch_repair', 'journal'))).toEqual({});
});

it('writes nothing and makes no backup when the set is already in place', async () => {
  dotDir = await makeDotDir();
  await writeSuggestion(dotDir, '4', generated);
  const result = await written('4', new Map([['2', generated['2.patch']]]));
  expect(result.changedFiles).toEqual([]);
  expect(await readFolder(backups())).toEqual({});
});

it('keeps the generated backup when an earlier repair is repaired again', async () => {
  dotDir = await makeDotDir();
  await writeSuggestion(dotDir, '4', generated);
  await written('4', new Map([['1', fixed1]]));
  const again = patchText('1', '#pragma omp parallel for reduction(+:sum) shared(a) ');
  await written('4', new Map([['1', again]]));
  expect(await readFolder(join(backups(), '4'))).toEqual(generated);
  await restoreAll(dotDir);
  expect(await readFolder(folder('4'))).toEqual(generated);
});

it('--restore puts every repaired set back byte for byte, removing files the repair added', async () => {
  dotDir = await makeDotDir();
  await writeSuggestion(dotDir, '4', generated);
  await writeSuggestion(dotDir, '12', { '3.patch': patchText('3', '#pragma omp parallel for ') });
  await written(
    '4',
    new Map([
      ['1', fixed1],
      ['5', patchText('5', '#include <omp.h>')],
    ]),
  );
  await written('12', new Map([['3', patchText('3', '#pragma omp parallel for shared(x) ')]]));

  const summary = await restoreAll(dotDir);

  expect(summary.restored).toEqual(['4', '12']);
  expect(summary.line).toBe('Restored 2 patch sets (4, 12).');
  expect(await readFolder(folder('4'))).toEqual(generated);
  expect(await readFolder(folder('12'))).toEqual({ '3.patch': patchText('3', '#pragma omp parallel for ') });
  expect(await readFolder(backups())).toEqual({});
  const log = (await readFile(restoreLogPath(dotDir), 'utf8')).trim().split('\n');
  expect(log).toHaveLength(2);
  expect(log[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+ restored 4: /);
});

it('--restore leaves a suggestion the generator rewrote since the repair alone and moves its stale backup aside, never deleting it', async () => {
  dotDir = await makeDotDir();
  await writeSuggestion(dotDir, '4', generated);
  await written('4', new Map([['1', fixed1]]));
  const regenerated = { '1.patch': patchText('1', '#pragma omp parallel for simd '), '2.patch': generated['2.patch'] };
  await writeSuggestion(dotDir, '4', regenerated);
  const writtenDigest = await readFile(join(backups(), '4.written'), 'utf8');

  const summary = await restoreAll(dotDir);

  expect(summary.restored).toEqual([]);
  expect(summary.dropped).toEqual([]);
  expect(summary.movedAside).toEqual([
    {
      id: '4',
      reason: expect.stringContaining('holds neither the backup nor the repair'),
      to: expect.stringMatching(/^patch_repair\/superseded\/4-\d{8}T\d{6}Z\/$/),
    },
  ]);
  const to = summary.movedAside[0]!.to;
  expect(summary.line).toBe(`Moved 1 stale backup aside, leaving the patches in patch_generator/ alone: 4 to ${to}.`);
  expect(await readFolder(folder('4'))).toEqual(regenerated);
  expect(await readFolder(backups())).toEqual({});
  expect(await readFolder(join(dotDir, to, '4'))).toEqual(generated);
  expect(await readFile(join(dotDir, to, '4.written'), 'utf8')).toBe(writtenDigest);
  expect(await readFile(restoreLogPath(dotDir), 'utf8')).toContain(
    `moved the stale backup of 4 aside to ${to} (nothing deleted)`,
  );
});

it('a repair of a regenerated suggestion moves the stale backup aside and backs up the new generation', async () => {
  dotDir = await makeDotDir();
  await writeSuggestion(dotDir, '4', generated);
  await written('4', new Map([['1', fixed1]]));
  const regenerated = { '1.patch': patchText('1', '#pragma omp parallel for simd '), '2.patch': generated['2.patch'] };
  await writeSuggestion(dotDir, '4', regenerated);

  const result = await writeBack(dotDir, suggestion('4'), new Map([['1', fixed1]]));

  expect(result).toMatchObject({ written: true, superseded: expect.stringMatching(/^patch_repair\/superseded\/4-/) });
  const to = (result as { superseded: string }).superseded;
  expect(await readFolder(join(backups(), '4'))).toEqual(regenerated);
  expect(await readFolder(join(dotDir, to, '4'))).toEqual(generated);
  expect(await readFile(restoreLogPath(dotDir), 'utf8')).toContain(`moved the stale backup of 4 aside to ${to}`);
  await restoreAll(dotDir);
  expect(await readFolder(folder('4'))).toEqual(regenerated);
  expect(await readFolder(join(dotDir, to, '4'))).toEqual(generated);
});

it('--restore with no backups says so and changes nothing', async () => {
  dotDir = await makeDotDir();
  await writeSuggestion(dotDir, '4', generated);
  const summary = await restoreAll(dotDir);
  expect(summary.line).toBe('Nothing to restore: no backups in patch_repair/backups/.');
  expect(await readFolder(folder('4'))).toEqual(generated);
});

it('leaves a backup whose .written digest cannot be read alone', async () => {
  dotDir = await makeDotDir();
  await writeSuggestion(dotDir, '4', { '1.patch': fixed1, '2.patch': generated['2.patch'] });
  await mkdir(join(backups(), '4'), { recursive: true });
  for (const [name, text] of Object.entries(generated)) await writeFile(join(backups(), '4', name), text);
  await mkdir(join(backups(), '4.written'));

  const summary = await restoreAll(dotDir);

  expect(summary.leftAlone.map((l) => l.id)).toEqual(['4']);
  expect(await readFolder(join(backups(), '4'))).toEqual(generated);
  expect(await readFolder(folder('4'))).toEqual({ '1.patch': fixed1, '2.patch': generated['2.patch'] });
});

it('refuses a file id that could leave the suggestion folder', async () => {
  dotDir = await makeDotDir();
  await writeSuggestion(dotDir, '4', generated);
  await expect(writeBack(dotDir, suggestion('4'), new Map([['../../x', fixed1]]))).rejects.toThrow(/unsafe file id/);
  expect(await readFolder(folder('4'))).toEqual(generated);
});

it('puts the generated set back and says so when what was written is not what was verified', async () => {
  dotDir = await makeDotDir();
  await writeSuggestion(dotDir, '4', generated);
  const outcome = await runChild(
    { op: 'write-back-tampered', dotDir, id: '4', canonical: { '1': fixed1 }, tamper: join(folder('4'), '1.patch') },
    'write-back.after-rename:SIGUSR2',
  );
  expect(outcome.kind === 'exited' && outcome.exitCode, describeRun(outcome)).toBe(0);
  const result = JSON.parse(outcome.kind === 'exited' ? outcome.stdout : '{}') as WriteBackResult;
  expect(result).toEqual({
    written: false,
    problem: `${folder('4')}: 1.patch differs from the verified patch after the write-back`,
    affectsEveryWrite: false,
  });
  expect(await readFolder(folder('4'))).toEqual(generated);
  expect(await readFolder(backups())).toEqual({});
  expect(await readFolder(join(dotDir, 'patch_repair', 'journal'))).toEqual({});
});

it('undoes a write-back that cannot put a file in place and says why, leaving the generated set', async () => {
  dotDir = await makeDotDir();
  await writeSuggestion(dotDir, '4', generated);
  // A folder where the repair's new patch file belongs: its rename fails, as root too.
  await mkdir(join(folder('4'), '3.patch', 'x'), { recursive: true });
  const result = await writeBack(
    dotDir,
    suggestion('4'),
    new Map([
      ['1', fixed1],
      ['3', patchText('3', '#include <omp.h>')],
    ]),
  );
  expect(result).toEqual({
    written: false,
    problem: `${folder('4')}: is a folder, expected a file`,
    affectsEveryWrite: false,
  });
  expect(await readFolder(folder('4'))).toEqual({ ...generated, '3.patch/': '(folder)' });
  expect(await readFolder(join(dotDir, 'patch_repair', 'journal'))).toEqual({});
});

it('refuses to start a write-back while an interrupted one is pending', async () => {
  dotDir = await makeDotDir();
  await writeSuggestion(dotDir, '4', generated);
  const outcome = await runChild(
    { op: 'write-back', dotDir, id: '4', canonical: { '1': fixed1 } },
    'write-back.after-commit',
  );
  expect(outcome.kind).toBe('signaled');
  await expect(writeBack(dotDir, suggestion('4'), new Map([['1', fixed1]]))).rejects.toThrow(
    /recoverWriteBack must run first/,
  );
});
