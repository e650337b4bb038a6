// A .discopop as DiscoPoP's own tools leave it (its test_patchset.py and test_safety.py): a stray
// .patch file in a suggestion folder, a whitespace-only patch. Each costs only itself, never the run.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { readResults, runCli } from '../helpers/cli.js';
import { discopopDigest, readSet } from '../../src/store/patch-set-files.js';

it('a stray .patch file is left out with one stderr line, recorded, and stays byte for byte in the folder, the backup and the digest', async () => {
  const { dotDir } = useFixture('demo');
  const folder = path.join(dotDir, 'patch_generator', '2');
  const stray = {
    '99.patch': Buffer.from('--- a/x.c\n+++ b/x.c\n'),
    'x.patch': Buffer.from('not \xe9 patch\n', 'latin1'),
  };
  for (const [name, bytes] of Object.entries(stray)) writeFileSync(path.join(folder, name), bytes);
  // Suggestion 3's patch becomes whitespace only: no patch, as DiscoPoP drops it.
  writeFileSync(
    path.join(dotDir, 'patch_generator', '3', readdirSync(path.join(dotDir, 'patch_generator', '3'))[0]!),
    ' \n\t\n',
  );

  const run = await runCli(dotDir, ['--dot-dp-path', dotDir, '--backend', 'builtin', '-s', '2,3']);
  expect(run.exitCode, run.stdout + run.stderr).toBe(0);
  const strayLines = run.stderr.split('\n').filter((line) => line.includes('left out of suggestion 2'));
  expect(strayLines).toHaveLength(2);
  expect(strayLines[0]).toContain(
    `${path.join('patch_generator', '2', '99.patch')}: file id 99: not listed in FileMapping.txt`,
  );

  const records = readResults(dotDir).suggestions;
  const two = records.find((r) => r.id === '2')!;
  expect(two).toMatchObject({ status: 'repaired', ignored_files: ['99.patch', 'x.patch'] });
  expect(records.find((r) => r.id === '3')).toMatchObject({ status: 'skipped', reason: 'no patch' });
  for (const [name, bytes] of Object.entries(stray)) {
    expect(readFileSync(path.join(folder, name)).equals(bytes), name).toBe(true);
    expect(readFileSync(path.join(dotDir, two.backup!, name)).equals(bytes), `backup ${name}`).toBe(true);
  }
  const written = readFileSync(path.join(dotDir, 'patch_repair', 'backups', '2.written'), 'utf8').trim();
  expect(written).toBe(discopopDigest(await readSet(folder)));
});

it.each([
  ['empty', ''],
  ['blank lines only', '\n  \r\n\n'],
])(
  'a FileMapping.txt that lists no file (%s) refuses the run: exit 2, one line naming it, nothing written',
  async (_name, text) => {
    const { dotDir } = useFixture('demo');
    const mapping = path.join(dotDir, 'FileMapping.txt');
    writeFileSync(mapping, text);
    const before = await readSet(path.join(dotDir, 'patch_generator', '2'));

    const run = await runCli(dotDir, ['--dot-dp-path', dotDir, '--backend', 'builtin', '-s', '2,3']);
    expect(run.exitCode, run.stdout + run.stderr).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      `patch-repair: ${mapping}: whole file: lists no source file; expected "<file id><TAB><absolute path>" lines, as DiscoPoP writes them while instrumenting`,
    ]);
    const repairDir = path.join(dotDir, 'patch_repair');
    for (const name of ['results.json', 'backups', 'run.lock'])
      expect(existsSync(path.join(repairDir, name)), name).toBe(false);
    expect(await readSet(path.join(dotDir, 'patch_generator', '2'))).toEqual(before);
  },
);
