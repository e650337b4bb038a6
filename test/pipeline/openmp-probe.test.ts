// The OpenMP probe through the built CLI on the demo, with real gcc and real clang: a build that
// does not compile OpenMP (flags hard-coded in compile.sh, -fopenmp-simd) or hides a compiler
// failure (no output, exit 0) is refused with exit 3 before any suggestion is judged; a normal one,
// or one that exits 0 but lets the compiler's errors through, goes on and the probe shows in no
// suggestion's result. One suggestion is considered, so a run costs three
// builds: reference, probe, the suggestion.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROBE_IDENTIFIER } from '../../src/build/index.js';
import { useFixture } from '../helpers/fixture.js';
import { changedPaths, snapshotTree } from '../helpers/tree-snapshot.js';
import { readResults, runCli } from '../helpers/cli.js';

const outsideRepairFolder = (rel: string) => rel.startsWith(path.join('.discopop', 'patch_repair'));

const cli = (dotDir: string, ...args: string[]) => runCli(dotDir, ['--dot-dp-path', dotDir, ...args]);

/**
 * The demo with its configuration's settings and compile.sh replaced; `par` writes the flags to
 * par_settings.json as given, else seq_settings.json gets them and -fopenmp is derived.
 */
function demo(o: { cc: string; cflags: string; make?: string; par?: boolean }) {
  const copy = useFixture('demo');
  const config = path.join(copy.dotDir, 'project', 'configs', 'tiny');
  const settings = JSON.stringify({
    CC: o.cc,
    CXX: o.cc === 'clang' ? 'clang++' : 'g++',
    CFLAGS: o.cflags,
    CXXFLAGS: o.cflags,
  });
  writeFileSync(path.join(config, o.par ? 'par_settings.json' : 'seq_settings.json'), settings);
  if (o.make !== undefined)
    writeFileSync(path.join(config, 'compile.sh'), `#!/bin/bash\ncd "$DP_PROJECT_ROOT_DIR" || exit 1\n${o.make}\n`);
  return copy;
}

describe('a build that does not compile OpenMP is refused', () => {
  it.each([
    ['gcc, compile.sh with hard-coded flags', { cc: 'gcc', cflags: '-O2', make: 'make CC=gcc CFLAGS=-O2' }],
    ['clang, compile.sh with hard-coded flags', { cc: 'clang', cflags: '-O2', make: 'make CC=clang CFLAGS=-O2' }],
    ['gcc with -fopenmp-simd in par_settings.json', { cc: 'gcc', cflags: '-O2 -fopenmp-simd', par: true }],
    ['clang with -fopenmp-simd in par_settings.json', { cc: 'clang', cflags: '-O2 -fopenmp-simd', par: true }],
    // A compiler error that compile.sh lets through fails a build whatever its exit code; hidden, it cannot.
    [
      "gcc -fopenmp, but compile.sh hides the compiler's output and exits 0",
      { cc: 'gcc', cflags: '-O2', make: 'make -k CC="$CC" CFLAGS="$CFLAGS" >/dev/null 2>&1 || true' },
    ],
  ])('%s: exit 3 before any suggestion is judged, naming the file and both causes', async (_name, settings) => {
    const { root, dotDir } = demo(settings);
    const before = snapshotTree(root, outsideRepairFolder);
    const run = await cli(dotDir, '--discover-only', '-s', '3');
    expect(run.exitCode, run.stdout + run.stderr).toBe(3);
    // Progress lines share stderr; the refusal is the one error line.
    const refusal = run.stderr
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('patch-repair:'));
    expect(refusal).toHaveLength(1);
    expect(refusal[0]).toMatch(
      /^patch-repair: OpenMP probe: the build passed with `#pragma omp parallel for private\(patch_repair_openmp_probe_undeclared\)` above the loop at src\/matvec\.c:\d+/,
    );
    expect(refusal[0]).toMatch(
      /compile\.sh must pass \$CC\/\$CXX and \$CFLAGS\/\$CXXFLAGS from (par|seq)_settings\.json/,
    );
    expect(refusal[0]).toContain('compile.sh exits 0 although the compiler failed');

    const file = readResults(dotDir);
    expect(file.run).toMatchObject({ exit_code: 3, openmp_probe: { status: 'compiled', file: 'src/matvec.c' } });
    expect(file.suggestions).toEqual([
      expect.objectContaining({ id: '3', status: 'skipped', reason: 'not built: the run was refused' }),
    ]);
    expect(changedPaths(before, snapshotTree(root, outsideRepairFolder), { mtimes: true })).toEqual([]);

    const show = await cli(dotDir, 'show');
    expect(show.stdout).toMatch(
      /^OpenMP probe \(src\/matvec\.c:\d+\): compiled, so the build does not compile OpenMP directives$/m,
    );
  });
});

describe('every mode that builds runs the probe', () => {
  it.each([['--dry-run'], ['a repair run']])(
    '%s with hard-coded flags: refused with exit 3, patch_generator/ untouched',
    async (mode) => {
      const { root, dotDir } = demo({ cc: 'gcc', cflags: '-O2', make: 'make CC=gcc CFLAGS=-O2' });
      const before = snapshotTree(root, outsideRepairFolder);
      const run = await cli(dotDir, '--backend', 'builtin', '-s', '3', ...(mode === '--dry-run' ? [mode] : []));
      expect(run.exitCode, run.stdout + run.stderr).toBe(3);
      expect(run.stderr).toMatch(/^patch-repair: OpenMP probe: the build passed/m);
      expect(readResults(dotDir).run).toMatchObject({ exit_code: 3, openmp_probe: { status: 'compiled' } });
      expect(changedPaths(before, snapshotTree(root, outsideRepairFolder), { mtimes: true })).toEqual([]);
    },
  );
});

describe('a build that compiles OpenMP goes on', () => {
  it.each([
    ['gcc', { cc: 'gcc', cflags: '-O2 -Wall' }],
    ['clang', { cc: 'clang', cflags: '-O2 -Wall' }],
    [
      'gcc, compile.sh exits 0 although the compiler printed errors',
      { cc: 'gcc', cflags: '-O2 -Wall', make: 'make -k CC="$CC" CFLAGS="$CFLAGS" || true' },
    ],
  ])(
    '%s: the compiler rejects the probe, discovery judges the suggestion, and no result mentions the probe',
    async (_name, settings) => {
      const { root, dotDir } = demo(settings);
      const before = snapshotTree(root, outsideRepairFolder);
      const run = await cli(dotDir, '--discover-only', '-s', '3');
      expect(run.exitCode, run.stdout + run.stderr).toBe(1);
      expect(run.stderr).not.toMatch(/^(warning|error):/m);
      expect(run.stderr).toMatch(
        /^OpenMP probe \(src\/matvec\.c:\d+\): rejected by the compiler, so the build compiles OpenMP$/m,
      );

      const file = readResults(dotDir);
      expect(file.run.openmp_probe).toMatchObject({
        status: 'rejected',
        file: 'src/matvec.c',
        detail: expect.stringContaining(PROBE_IDENTIFIER),
      });
      expect(file.suggestions.map((s) => [s.id, s.status, s.error_class])).toEqual([
        ['3', 'failed', 'undeclared-in-clause'],
      ]);
      // The suggestion was built without the probe: its diagnostics are its own.
      expect(JSON.stringify(file.suggestions)).not.toContain(PROBE_IDENTIFIER);
      expect(
        readFileSync(path.join(dotDir, 'patch_repair', 'progress.jsonl'), 'utf8')
          .split('\n')
          .filter((line) => line.includes('"suggestion-finished"'))
          .join('\n'),
      ).not.toContain(PROBE_IDENTIFIER);
      expect(changedPaths(before, snapshotTree(root, outsideRepairFolder), { mtimes: true })).toEqual([]);

      // The review page states it among the run's facts.
      expect((await cli(dotDir, 'report')).exitCode).toBe(0);
      expect(readFileSync(path.join(dotDir, 'patch_repair', 'report.html'), 'utf8')).toMatch(
        /<dt>OpenMP probe<\/dt><dd>OpenMP probe \(src\/matvec\.c:\d+\): rejected by the compiler, so the build compiles OpenMP<\/dd>/,
      );
    },
  );
});

it('a compile.sh that keeps the compiler quiet still proves OpenMP by failing, and the run says how it read that', async () => {
  const { dotDir } = demo({ cc: 'gcc', cflags: '-O2', make: 'make CC="$CC" CFLAGS="$CFLAGS" >/dev/null 2>&1' });
  const run = await cli(dotDir, '--discover-only', '-s', '3');
  expect(run.exitCode, run.stdout + run.stderr).toBe(1);
  expect(run.stderr).toContain(`warning: OpenMP probe in src/matvec.c:`);
  expect(run.stderr).toContain(
    `the build failed, but its output does not name ${PROBE_IDENTIFIER}; taken as rejected by the compiler`,
  );
  expect(readResults(dotDir).run.openmp_probe).toMatchObject({
    status: 'rejected',
    detail: 'the build failed; its output does not name the probe',
  });
});
