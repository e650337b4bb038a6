// Every project layout DiscoPoP produces, through the built CLI with real gcc: the per-configuration
// layout (compile.sh run from its configuration folder), the shared new_explorer layout
// (fixtures/new-layout: compile.sh and seq_settings.json once in project/configs/, run as
// `/bin/bash compile.sh` from the project root, a configuration's own compile.sh overriding it),
// and a .discopop folder that is not inside the project (--project-root). Each run considers one
// suggestion: reference build, OpenMP probe, the suggestion.
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { changedPaths, snapshotTree } from '../helpers/tree-snapshot.js';
import { readResults, runCli } from '../helpers/cli.js';

const outsideRepairFolder = (rel: string) => rel.startsWith(path.join('.discopop', 'patch_repair'));

const cli = (cwd: string, ...args: string[]) => runCli(cwd, args);

describe('the shared layout of DiscoPoP new_explorer', () => {
  it('builds with the shared compile.sh from the project root and settings derived afresh, ignoring a stale par_settings.json', async () => {
    const { root, dotDir } = useFixture('new-layout');
    const before = snapshotTree(root, outsideRepairFolder);
    // The shared compile.sh has no execute bit and runs `make` without a cd: it works only as
    // `/bin/bash compile.sh` from the root. The stale par_settings.json lacks -fopenmp: were it
    // used, the OpenMP probe would refuse the run.
    const run = await cli(dotDir, '--discover-only');
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    const file = readResults(dotDir);
    expect(file.run.openmp_probe).toMatchObject({ status: 'rejected', file: 'src/scale.c', line: 4 });
    expect(file.suggestions).toEqual([
      expect.objectContaining({ id: '1', status: 'failed', error_class: 'undeclared-in-clause' }),
    ]);
    expect(file.suggestions[0]!.first_error).toMatch(/^src\/scale\.c:4:\d+: error: .sum. undeclared/);
    expect(changedPaths(before, snapshotTree(root, outsideRepairFolder), { mtimes: true })).toEqual([]);
  });

  it("uses a configuration's own compile.sh over the shared one", async () => {
    const { dotDir } = useFixture('new-layout');
    // This one ignores the settings: the probe compiles, which proves it is the script that ran.
    writeFileSync(path.join(dotDir, 'project', 'configs', 'tiny', 'compile.sh'), 'make CC=gcc CFLAGS=-O2\n');
    const run = await cli(dotDir, '--discover-only');
    expect(run.exitCode, run.stdout + run.stderr).toBe(3);
    expect(run.stderr).toContain(`${path.join(dotDir, 'project', 'configs', 'tiny', 'compile.sh')} must pass $CC/$CXX`);
  });

  it('names the missing shared seq_settings.json', async () => {
    const { dotDir } = useFixture('new-layout');
    rmSync(path.join(dotDir, 'project', 'configs', 'seq_settings.json'));
    const run = await cli(dotDir, '--discover-only');
    expect(run.exitCode).toBe(2);
    expect(run.stderr.trim()).toBe(
      `patch-repair: ${path.join(dotDir, 'project', 'configs', 'seq_settings.json')}: whole file: expected the shared seq_settings.json beside the shared compile.sh; it is missing`,
    );
  });
});

describe('the per-configuration layout', () => {
  it('runs compile.sh from its configuration folder, with bash when it has no execute bit', async () => {
    const { dotDir } = useFixture('new-layout');
    const configs = path.join(dotDir, 'project', 'configs');
    renameSync(path.join(configs, 'seq_settings.json'), path.join(configs, 'tiny', 'seq_settings.json'));
    rmSync(path.join(configs, 'tiny', 'par_settings.json'));
    // Relative to the configuration folder, as DiscoPoP's master branch runs it.
    writeFileSync(path.join(configs, 'tiny', 'compile.sh'), 'cd ../../../.. && make CC="$CC" CFLAGS="$CFLAGS"\n');
    chmodSync(path.join(configs, 'tiny', 'compile.sh'), 0o644);
    rmSync(path.join(configs, 'compile.sh'));
    const run = await cli(dotDir, '--discover-only');
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    expect(readResults(dotDir).run.openmp_probe).toMatchObject({ status: 'rejected' });
  });
});

describe('--project-root: a .discopop folder outside the project', () => {
  it('without it, names the option; with it, builds the project and writes nothing into it', async () => {
    const { root, dotDir } = useFixture('new-layout');
    const analysis = path.join(path.dirname(root), 'analysis');
    mkdirSync(analysis);
    const moved = path.join(analysis, '.discopop');
    renameSync(dotDir, moved);

    const without = await cli(analysis, '--dot-dp-path', moved, '--discover-only');
    expect(without.exitCode).toBe(2);
    expect(without.stderr.split('\n')[0]).toBe(
      `patch-repair: ${moved}/FileMapping.txt: line 1: expected a path inside the project root ${analysis} (the parent of the .discopop folder; give --project-root when the project is elsewhere); ${root}/src/main.c is outside it, and main.c does not exist under it either`,
    );

    const before = snapshotTree(root, () => false);
    const run = await cli(analysis, '--dot-dp-path', moved, '--project-root', root, '--discover-only');
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    const file = readResults(moved);
    expect(file.run.openmp_probe).toMatchObject({ status: 'rejected', file: 'src/scale.c' });
    expect(file.suggestions).toEqual([
      expect.objectContaining({ id: '1', status: 'failed', error_class: 'undeclared-in-clause' }),
    ]);
    expect(
      changedPaths(
        before,
        snapshotTree(root, () => false),
        { mtimes: true },
      ),
    ).toEqual([]);
    expect(existsSync(path.join(root, '.discopop'))).toBe(false);
    expect(readdirSync(path.join(moved, 'patch_repair')).sort()).toEqual([
      'progress.jsonl',
      'results.json',
      'scratch.json',
    ]);
  });
});
