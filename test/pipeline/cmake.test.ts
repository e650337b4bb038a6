// A CMake project (C and C++, a header shared by two units) through the built CLI, with real CMake
// and both of its common generators. CMake writes the absolute path of the build folder into what
// it generates, so a workspace made from copies of another's outputs fails every build; these
// tests hold patch-repair to giving at any -j, with either generator, exactly what -j 1 gives.
// The cases of a block run side by side, each on its own copy of the project; the blocks run one
// after the other, so that no more than three CLI runs share the two cores and each test's time is
// its own runs', not a wait for others.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { runProcess } from '../../src/process.js';
import { EventSchema } from '../../src/formats/events.js';
import { type RunResults } from '../../src/formats/results.js';
import { useFixture } from '../helpers/fixture.js';
import { changedPaths, snapshotTree } from '../helpers/tree-snapshot.js';
import { readResults, runCli } from '../helpers/cli.js';

// compile.sh leaves the generator to CMake, which reads it from the environment.
const cli = (dotDir: string, generator: string, ...args: string[]) =>
  runCli(dotDir, ['--dot-dp-path', dotDir, ...args], { env: { CMAKE_GENERATOR: generator }, timeoutMs: 300_000 });

/** What discovery found, per suggestion: status, error class and first error. */
function findings(file: RunResults): Record<string, string> {
  return Object.fromEntries(
    file.suggestions.map((s) => [s.id, `${s.status} ${s.error_class ?? '-'} ${s.first_error ?? '-'}`]),
  );
}

function referenceBuildsLogged(dotDir: string): number {
  const lines = readFileSync(path.join(dotDir, 'patch_repair', 'progress.jsonl'), 'utf8')
    .trim()
    .split('\n');
  return lines
    .map((line) => EventSchema.parse(JSON.parse(line)))
    .filter((e) => e.type === 'build-started' && e.purpose === 'reference').length;
}

/** Every patch file under patch_generator/, with the copy's root and diff's time stamps taken out. */
function patchSets(root: string, dotDir: string): Record<string, string> {
  const dir = path.join(dotDir, 'patch_generator');
  const sets: Record<string, string> = {};
  for (const id of readdirSync(dir).sort()) {
    for (const file of readdirSync(path.join(dir, id)).sort()) {
      sets[`${id}/${file}`] = readFileSync(path.join(dir, id, file), 'utf8')
        .split(root)
        .join('<root>')
        .replace(/^((?:---|\+\+\+) \S+)\t.*$/gm, '$1');
    }
  }
  return sets;
}

const outsideRepair = (rel: string) => rel.startsWith(path.join('.discopop', 'patch_repair'));

/** What discovery must hold at any -j: a reference build of its own in every workspace begun, the user's tree untouched. */
async function discover(generator: string, jobs: number, test: TestContext): Promise<Record<string, string>> {
  const { root, dotDir } = useFixture('cmake', test);
  const before = snapshotTree(root, outsideRepair);
  const run = await cli(dotDir, generator, '--discover-only', '-j', String(jobs));
  expect(run.exitCode, run.stdout + run.stderr).toBe(1);
  const file = readResults(dotDir);
  // A reference build for every workspace begun, as many as -j allows with 6 builds to share
  // (one begun late may still be building when the first workspace has done everything).
  expect(file.run.workspaces).toMatchObject({ reference_outputs: 'rebuilt', reference_builds: jobs });
  expect(file.run.workspaces!.count).toBeGreaterThanOrEqual(Math.min(jobs, 2));
  expect(file.run.workspaces?.path_files).toContain('build/CMakeCache.txt');
  expect(referenceBuildsLogged(dotDir)).toBe(jobs);
  expect(changedPaths(before, snapshotTree(root, outsideRepair), { mtimes: true })).toEqual([]);
  return findings(file);
}

// Discovery with Unix Makefiles at -j 1, run once for the file: what every other discovery, at
// any -j and with either generator, must find. Its copy goes with the test that starts it, which
// waits for it like every other.
let serialRun: Promise<Record<string, string>> | undefined;
const serialFindings = (test: TestContext) => (serialRun ??= discover('Unix Makefiles', 1, test));

describe('discovery of a CMake project', () => {
  it.concurrent(
    'with Unix Makefiles at -j 1 finds some suggestions building and others failing, each for its own reason',
    async (test) => {
      const serial = await serialFindings(test);
      // A workspace built from another's outputs would fail them all with CMake's cache-directory error.
      expect(Object.values(serial).filter((f) => f.startsWith('ok'))).toHaveLength(3);
      expect(
        Object.values(serial)
          .filter((f) => f.startsWith('failed'))
          .map((f) => f.split(' ')[1]),
      ).toEqual(['undeclared-in-clause', 'duplicate-data-sharing', 'undeclared-in-clause']);
      expect(JSON.stringify(serial)).not.toContain('CMake');
    },
  );

  // The grid crosses both generators and parallel builds without repeating a proof: each of these
  // runs its workspaces' reference builds side by side, and must find what -j 1 found.
  it.concurrent.for([
    ['Unix Makefiles', 2],
    ['Ninja', 4],
  ] as const)(
    'with %s at -j %i finds the same failing suggestions with the same first errors; every workspace runs its own reference build',
    async ([generator, jobs], test) => {
      expect(await discover(generator, jobs, test)).toEqual(await serialFindings(test));
    },
  );
});

describe('repairing a CMake project', () => {
  // Two whole repair runs, side by side, each configuring CMake in every workspace: more than the usual limit on a slow machine.
  it('writes the same repaired patch sets with Unix Makefiles at -j 1 as with Ninja at -j 2', async (test) => {
    const repair = async (generator: string, jobs: number) => {
      const { root, dotDir } = useFixture('cmake', test);
      const generated = patchSets(root, dotDir);
      const run = await cli(dotDir, generator, '--backend', 'builtin', '-j', String(jobs));
      expect(run.exitCode, run.stdout + run.stderr).toBe(0);
      const file = readResults(dotDir);
      expect(file.suggestions.filter((s) => s.status === 'repaired').map((s) => s.id)).toEqual(['1', '3', '5']);
      const sets = patchSets(root, dotDir);
      expect(Object.keys(sets).filter((key) => sets[key] !== generated[key])).toEqual([
        '1/2.patch',
        '3/3.patch',
        '5/1.patch',
      ]);
      return sets;
    };
    const runs = [repair('Unix Makefiles', 1), repair('Ninja', 2)];
    // Both runs end before the test does and its copies go, even when one of them fails.
    await Promise.allSettled(runs);
    const [makefiles, ninja] = await Promise.all(runs);
    expect(ninja).toEqual(makefiles);
  }, 300_000);
});

describe("a CMake project holding the user's own build folder", () => {
  it.concurrent(
    'is refused with the reason and both fixes; --exclude build then gives the results of a clean tree',
    async (test) => {
      const { root, dotDir } = useFixture('cmake', test);
      const configure = await runProcess({
        command: 'cmake',
        args: ['-S', '.', '-B', 'build', '-G', 'Unix Makefiles'],
        cwd: root,
        timeoutMs: 120_000,
      });
      expect(
        configure.kind === 'exited' && configure.exitCode,
        configure.kind === 'exited' ? configure.stdout + configure.stderr : '',
      ).toBe(0);
      const before = snapshotTree(root, outsideRepair);

      const refused = await cli(dotDir, 'Unix Makefiles', '--discover-only', '-j', '2');
      expect(refused.exitCode).toBe(3);
      const message = refused.stderr;
      expect(message).toContain(
        `the reference build fails because build/ was configured at the project's own path ${root} (build/CMakeCache.txt records it)`,
      );
      expect(message).toContain('patch-repair builds in copies of the project');
      expect(message).toContain('--exclude build');
      expect(message).toContain('configure a fresh build folder of its own');
      // CMake's own words are quoted, and never rewritten into a path that differs from itself.
      expect(message).toContain('is different than the directory');
      expect(message).not.toContain(`${root}/build/CMakeCache.txt is different than the directory ${root}/build where`);

      const excluded = await cli(dotDir, 'Unix Makefiles', '--discover-only', '-j', '2', '--exclude', 'build');
      expect(excluded.exitCode, excluded.stdout + excluded.stderr).toBe(1);
      const file = readResults(dotDir);
      expect(findings(file)).toEqual(await serialFindings(test));
      expect(file.run.options).toMatchObject({ exclude: ['build'] });
      // The user's build folder was read, never written.
      expect(changedPaths(before, snapshotTree(root, outsideRepair), { mtimes: true })).toEqual([]);
    },
  );

  it.concurrent(
    "is refused, not passed, when compile.sh only runs cmake --build on it: CMake would build the user's sources, not the patched copy",
    async (test) => {
      const { root, dotDir } = useFixture('cmake', test);
      const configure = await runProcess({
        command: 'sh',
        args: ['-c', 'cmake -S . -B build -DCMAKE_C_FLAGS=-fopenmp -DCMAKE_CXX_FLAGS=-fopenmp && cmake --build build'],
        cwd: root,
        timeoutMs: 120_000,
      });
      expect(configure.kind === 'exited' && configure.exitCode).toBe(0);
      writeFileSync(
        path.join(dotDir, 'project', 'configs', 'tiny', 'compile.sh'),
        '#!/bin/sh\ncd "$DP_PROJECT_ROOT_DIR" || exit 1\ncmake --build build\n',
      );

      const refused = await cli(dotDir, 'Unix Makefiles', '--discover-only', '-j', '1');
      expect(refused.exitCode, refused.stdout + refused.stderr).toBe(3);
      expect(refused.stderr).toContain(
        `the reference build passed, but only because build/ was configured at the project's own path ${root} (build/CMakeCache.txt records it)`,
      );
      expect(refused.stderr).toContain('--exclude build');
      // Nothing was judged: every suggestion is recorded as not built, none as building.
      expect(new Set(readResults(dotDir).suggestions.map((s) => s.status))).toEqual(new Set(['skipped']));
    },
  );
});
