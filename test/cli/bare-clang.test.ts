// A machine with clang-N but no `clang` (Debian's clang-N packages alone): settings that say
// CC=clang build with the newest clang-N that builds and links OpenMP for the run, real builds and
// the OpenMP probe included, and the output says so once, naming a newer one it passed over. PATH is
// a folder of links to /usr/bin with clang and clang++ left out and a fake clang-99 that cannot link.
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { readResults, runCli } from '../helpers/cli.js';

/**
 * Links to /usr/bin without clang and clang++, and with a fake `clang-99`/`clang++-99` that
 * compiles like clang-14 but cannot link OpenMP (the state of a machine with a newer clang and only
 * clang 14's libomp): the newest versioned clang that links OpenMP must be taken, not the newest.
 */
function pathWithoutBareClang(): string {
  const bin = mkdtempSync(path.join(tmpdir(), 'pr-no-clang-'));
  for (const name of readdirSync('/usr/bin')) {
    if (name !== 'clang' && name !== 'clang++') symlinkSync(path.join('/usr/bin', name), path.join(bin, name));
  }
  for (const [fake, real] of [
    ['clang-99', 'clang-14'],
    ['clang++-99', 'clang++-14'],
  ] as const) {
    writeFileSync(path.join(bin, fake), `#!/bin/sh\nexec /usr/bin/${real} "$@" -lomp_of_clang_99\n`);
    chmodSync(path.join(bin, fake), 0o755);
  }
  return bin;
}

/** The versioned clang the run should take: clang-19 links OpenMP where scripts/install-llvm-openmp.sh 19 ran. */
const newestLinking = existsSync('/usr/lib/llvm-19/lib/libomp.so') ? '19' : '14';

describe('a bare clang that is not on PATH', () => {
  it('builds with the newest clang-<N> that links OpenMP, names it and the newer one it passed over once, and leaves the settings file as written', async () => {
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
    const notice = new RegExp(
      `clang and clang\\+\\+ are not on PATH; using clang-${newestLinking} and clang\\+\\+-${newestLinking} \\(newest clang-<N> and clang\\+\\+-<N> on PATH that builds and links OpenMP; passed over clang-99: it cannot build and link an OpenMP program: [^;]*omp_of_clang_99[^;]*; passed over clang\\+\\+-99: [^)]*omp_of_clang_99[^)]*\\) for this run`,
      'g',
    );
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
