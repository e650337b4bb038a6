// A machine with clang-14 but no `clang` (Debian's clang-14 package alone): settings that say
// CC=clang build with clang-14 for the run, real builds and the OpenMP probe included, and the
// output says so once. PATH is a folder of links to /usr/bin with clang and clang++ left out.
import { mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { readResults, runCli } from '../helpers/cli.js';

function pathWithoutBareClang(): string {
  const bin = mkdtempSync(path.join(tmpdir(), 'pr-no-clang-'));
  for (const name of readdirSync('/usr/bin')) {
    if (name !== 'clang' && name !== 'clang++') symlinkSync(path.join('/usr/bin', name), path.join(bin, name));
  }
  return bin;
}

describe('a bare clang that is not on PATH', () => {
  it('builds with the newest clang-<N>, names it once, and leaves the settings file as written', async () => {
    const { dotDir } = useFixture('demo');
    const settingsFile = path.join(dotDir, 'project', 'configs', 'tiny', 'par_settings.json');
    const settings = JSON.stringify({ CC: 'clang', CXX: 'clang++', CFLAGS: '-O2 -fopenmp', CXXFLAGS: '-O2 -fopenmp' });
    writeFileSync(settingsFile, settings);

    const run = await runCli(dotDir, ['--dot-dp-path', dotDir, '--discover-only', '-s', '3'], {
      env: { ...process.env, PATH: pathWithoutBareClang() } as Record<string, string>,
    });
    // Exit 1: suggestion 3 of the demo does not compile; clang's wording of its error shows who built it.
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toMatch(/^reference build: builds$/m);
    expect(run.stderr).toMatch(/^OpenMP probe \(src\/matvec\.c:\d+\): rejected by the compiler/m);
    const notice =
      /clang and clang\+\+ are not on PATH; using clang-14 and clang\+\+-14 \(newest clang-<N> and clang\+\+-<N> on PATH\) for this run/g;
    expect((run.stdout + run.stderr).match(notice)).toHaveLength(1);
    expect(readResults(dotDir).suggestions).toEqual([expect.objectContaining({ id: '3', status: 'failed' })]);
    expect(run.stdout).toContain("error: use of undeclared identifier 'acc'");
    expect(readFileSync(settingsFile, 'utf8')).toBe(settings);
  });

  it('without any clang-<N> either, the build fails with its own error and nothing is named', async () => {
    const { dotDir } = useFixture('demo');
    writeFileSync(
      path.join(dotDir, 'project', 'configs', 'tiny', 'par_settings.json'),
      JSON.stringify({ CC: 'clang-missing-here', CFLAGS: '-fopenmp' }),
    );
    const run = await runCli(dotDir, ['--dot-dp-path', dotDir, '--discover-only', '-s', '3']);
    expect(run.exitCode).not.toBe(0);
    expect(run.stdout + run.stderr).not.toMatch(/not on PATH; using/);
  });
});
