// Discovery's screens and grouped confirmations (src/build/screening/) against today's isolated
// builds: on every project builder the tests have — make under gcc and clang, CMake with Unix
// Makefiles and Ninja, the demo, the generated scale project at 40 units — each suggestion's
// verdict, failing stage, class, first error and diagnostics equal those of building it alone with
// compile.sh, while compile.sh runs far fewer times than once per suggestion.
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { discover, generatedPatchSet } from '../../src/build/discover.js';
import { createLauncher, type Launcher } from '../../src/build/launcher.js';
import { BuildPool } from '../../src/build/pool.js';
import { readDotDiscopop } from '../../src/discopop/index.js';
import type { Emit, RunEvent } from '../../src/formats/events.js';
import type { BuildResult, DotDiscopop, Suggestion } from '../../src/formats/types.js';
import { generateProject } from '../../scripts/scale-project.mjs';
import { useFixture } from '../helpers/fixture.js';
import { generatorPatch, insertBefore, makeProject, suggestion } from './project.js';

/** The local launcher, counting the compile.sh runs among its steps. */
function countingLauncher(): { launcher: Launcher; scripts: () => number } {
  const local = createLauncher({ name: 'local', args: [], runId: 'test' });
  let scripts = 0;
  const launcher: Launcher = {
    name: local.name,
    preflight: (o) => local.preflight(o),
    cancelAll: (say) => local.cancelAll(say),
    run: (step) => {
      if (step.command.some((part) => /compile\.sh$/.test(part))) scripts++;
      return local.run(step);
    },
  };
  return { launcher, scripts: () => scripts };
}

const verdict = (b: BuildResult) => ({
  ok: b.ok,
  failedAt: b.failedAt,
  errorClass: b.errorClass,
  firstError: b.firstError,
  diagnostics: b.diagnostics,
});

/**
 * Discovery, then every suggestion built alone in a second pool (today's discovery): both verdict
 * maps, with the events and the count of compile.sh runs of the discovery.
 */
async function againstIsolated(dp: DotDiscopop, considered: Suggestion[], o: { jobs: number; scratch: string }) {
  const events: RunEvent[] = [];
  const emit: Emit = (event) => void events.push({ ...event, t: new Date().toISOString() } as RunEvent);
  const signal = new AbortController().signal;
  const counted = countingLauncher();
  const screened = await BuildPool.create({
    dp,
    scratchDir: o.scratch,
    jobs: o.jobs,
    threads: 1,
    timeoutMs: 120_000,
    signal,
    emit,
    launcher: counted.launcher,
  });
  const alone = await BuildPool.create({
    dp,
    scratchDir: o.scratch,
    jobs: o.jobs,
    threads: 1,
    timeoutMs: 120_000,
    signal,
    emit: () => undefined,
  });
  try {
    const found = await discover({ dp, considered, pool: screened, emit });
    const scripts = counted.scripts();
    await screened.dispose();
    const withPatch = considered.filter((s) => s.files.length > 0);
    const isolated = await Promise.all(withPatch.map((s) => alone.build(s.id, generatedPatchSet(s), 'discovery')));
    return {
      found: Object.fromEntries([...found.builds].map(([id, b]) => [id, verdict(b)])),
      outputs: Object.fromEntries([...found.builds].map(([id, b]) => [id, b.output])),
      isolated: Object.fromEntries(withPatch.map((s, i) => [s.id, verdict(isolated[i]!)])),
      events,
      scripts,
    };
  } finally {
    await Promise.all([screened.dispose(), alone.dispose()]);
  }
}

const failing = (verdicts: Record<string, { ok: boolean }>) =>
  Object.keys(verdicts)
    .filter((id) => !verdicts[id]!.ok)
    .sort();
const screenNotice = (events: RunEvent[]) =>
  events.find((e) => e.type === 'notice' && e.message.includes("compiles each suggestion's changed units alone"));

describe.each(['gcc', 'clang'])('screened discovery of a make project under %s', (cc) => {
  it.concurrent(
    'gives every suggestion the verdict, class, first error and diagnostics of its isolated build, with one compile.sh run for most',
    async () => {
      const p = await makeProject({ settings: { CC: cc, CFLAGS: '-O0 -fopenmp -Wall' } });
      try {
        const patch = (rel: string, line: string, before = 'for (i = 0') =>
          generatorPatch(p, rel, insertBefore(before, line));
        const considered = [
          suggestion(p, '1', { 'src/a.c': await patch('src/a.c', '#pragma omp parallel for private(i)') }),
          suggestion(p, '2', { 'src/b.c': await patch('src/b.c', '#pragma omp parallel for private(t)') }),
          suggestion(p, '3', { 'src/b.c': await patch('src/b.c', '#pragma omp parallel for') }),
          // Two units, one failing: make's order decides which errors the full build shows.
          suggestion(p, '4', {
            'src/a.c': await patch('src/a.c', '#pragma omp parallel for shared(x)'),
            'src/b.c': await patch('src/b.c', '#pragma omp parallel for firstprivate(i) private(i)'),
          }),
          // A header: which units include it is not recorded, so it is built alone with compile.sh.
          suggestion(p, '5', { 'src/common.h': await patch('src/common.h', '#define EXTRA 1', 'void fill_a') }),
          // Compiles on its own, fails to link: the confirmation build fails and is split.
          suggestion(p, '6', {
            'src/main.c': await generatorPatch(p, 'src/main.c', (text) =>
              insertBefore(
                '    fill_a(x);',
                '    no_such_function();',
              )(insertBefore('int main', 'extern void no_such_function(void);')(text)),
            ),
          }),
          suggestion(p, '7', { 'src/a.c': await patch('src/a.c', '#pragma omp paralel for shared(x)') }),
          // a.c's patch on b.c: it does not apply, and that decides it before anything compiles.
          suggestion(p, '8', { 'src/b.c': await patch('src/a.c', '#define NOTHING', 'const char *a_mark') }),
          suggestion(p, '9', { 'src/main.c': await patch('src/main.c', '#pragma omp parallel', '    fill_a(x);') }),
        ];
        const run = await againstIsolated(p.dp, considered, { jobs: 2, scratch: p.scratch });
        expect(run.found).toEqual(run.isolated);
        expect(failing(run.found)).toEqual(['2', '4', '6', '7', '8']);
        expect(run.found['8']).toMatchObject({ failedAt: 'patch', errorClass: 'patch-does-not-apply' });
        expect(run.found['6']!.firstError).toMatch(/no_such_function/);
        expect(screenNotice(run.events)).toBeDefined();
        expect(run.events).toContainEqual(
          expect.objectContaining({
            type: 'notice',
            message: expect.stringContaining('suggestion 5: src/common.h is not a translation unit'),
          }),
        );
        // The reference build; 5 and 4 alone; 1, 3, 6 and 9 in two groups, the one holding 6 split
        // down to it (at most two more); 2, 7 and 8 decided by their screens.
        expect(run.scripts).toBeLessThanOrEqual(8);
        // 3 and 9 passed in one group, which linked the objects their screens had compiled.
        expect(run.outputs['3']).toBe(run.outputs['9']);
        expect(run.outputs['3']).toMatch(/-o prog /);
        expect(run.outputs['3']).not.toMatch(/-c -o src\/(?:b|main)\.o/);
        expect(run.scripts).toBeGreaterThanOrEqual(5);
        // One build-finished per suggestion, as the progress bar counts them.
        const finished = run.events
          .filter((e) => e.type === 'build-finished' && e.purpose === 'discovery')
          .map((e) => (e as { id: string }).id);
        expect(finished.sort()).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
      } finally {
        await p.remove();
      }
    },
    120_000,
  );
});

describe("screened discovery of a make project whose compile.sh sets the compiler's environment", () => {
  it.concurrent(
    "compiles a unit with the CPATH and the defines the reference build had, at the workspace's paths",
    async () => {
      // N comes from a header found only through CPATH, which compile.sh sets to a folder of the copy.
      const compileSh =
        '#!/bin/sh\ncd "$DP_PROJECT_ROOT_DIR" || exit 1\nCPATH="$DP_PROJECT_ROOT_DIR/config"; export CPATH\nmake CC="$CC" CFLAGS="$CFLAGS -include sizes.h"\n';
      const p = await makeProject({ compileSh });
      try {
        await mkdir(join(p.root, 'config'));
        await writeFile(join(p.root, 'config', 'sizes.h'), '#define SCREEN_SIZE 8\n');
        const patch = (line: string) => generatorPatch(p, 'src/a.c', insertBefore('for (i = 0', line));
        const considered = [
          suggestion(p, '1', { 'src/a.c': await patch('#pragma omp parallel for num_threads(SCREEN_SIZE)') }),
          suggestion(p, '2', { 'src/a.c': await patch('#pragma omp parallel for num_threads(SCREEN_SIZES)') }),
        ];
        const run = await againstIsolated(p.dp, considered, { jobs: 1, scratch: p.scratch });
        expect(run.found).toEqual(run.isolated);
        expect(failing(run.found)).toEqual(['2']);
        expect(run.found['2']!.firstError).toMatch(/SCREEN_SIZES/);
        expect(screenNotice(run.events)).toBeDefined();
      } finally {
        await p.remove();
      }
    },
    120_000,
  );
});

describe('screened discovery of a CMake project', () => {
  it.concurrent.for(['Unix Makefiles', 'Ninja'])(
    'with %s gives every suggestion the verdict of its isolated build',
    { timeout: 240_000 },
    async (generator, test) => {
      const { dotDir } = useFixture('cmake', test);
      const read = await readDotDiscopop(dotDir, 'tiny');
      // compile.sh leaves the generator to CMake, which reads it from the environment.
      const dp = {
        ...read,
        config: { ...read.config, settings: { ...read.config.settings, CMAKE_GENERATOR: generator } },
      };
      const run = await againstIsolated(dp, dp.suggestions, { jobs: 2, scratch: await scratchFor(test) });
      expect(run.found).toEqual(run.isolated);
      expect(failing(run.found)).toHaveLength(3);
      expect(screenNotice(run.events)).toBeDefined();
    },
  );
});

describe('screens that overlap the reference build', () => {
  /** compile.sh that compiles a.c, then takes its time before it builds the rest. */
  const slowAfterA = (flags = '$CFLAGS', before = '') =>
    `#!/bin/sh\ncd "$DP_PROJECT_ROOT_DIR" || exit 1\n${before}make CC="$CC" CFLAGS="${flags}" src/a.o && sleep 3 && make CC="$CC" CFLAGS="${flags}"\n`;
  const startedBeforeReference = (events: RunEvent[], id: string) => {
    const referenceEnd = events.findIndex((e) => e.type === 'build-finished' && e.purpose === 'reference');
    const started = events.findIndex((e) => e.type === 'build-started' && e.id === id);
    return referenceEnd > 0 && started >= 0 && started < referenceEnd;
  };

  it.concurrent(
    'start a suggestion as soon as the reference build has compiled its unit, with the verdict of its isolated build',
    async () => {
      const p = await makeProject({ compileSh: slowAfterA() });
      try {
        const patch = (rel: string, line: string) => generatorPatch(p, rel, insertBefore('for (i = 0', line));
        const considered = [
          suggestion(p, '1', { 'src/a.c': await patch('src/a.c', '#pragma omp parallel for private(i)') }),
          suggestion(p, '2', { 'src/a.c': await patch('src/a.c', '#pragma omp parallel for private(t)') }),
          suggestion(p, '3', { 'src/b.c': await patch('src/b.c', '#pragma omp parallel for private(t)') }),
        ];
        const run = await againstIsolated(p.dp, considered, { jobs: 2, scratch: p.scratch });
        expect(run.found).toEqual(run.isolated);
        expect(failing(run.found)).toEqual(['2', '3']);
        // a.c was compiled 3 s before the reference build ended.
        expect(startedBeforeReference(run.events, '1')).toBe(true);
        expect(startedBeforeReference(run.events, '2')).toBe(true);
        const times = (type: string, id: string | null) =>
          run.events.filter((e) => e.type === type && 'id' in e && e.id === id).map((e) => Date.parse(e.t));
        expect(Math.min(...times('build-started', '2'))).toBeLessThan(Math.min(...times('build-finished', null)));
        // Each suggestion is decided once, by the screen that ran early.
        const started = run.events.filter((e) => e.type === 'build-started' && e.purpose === 'discovery');
        expect(started.filter((e) => 'id' in e && e.id === '2')).toHaveLength(1);
      } finally {
        await p.remove();
      }
    },
    120_000,
  );

  it.concurrent(
    'screen again, after the reference build, a suggestion whose early screen lacked a header the reference build generated',
    async () => {
      // The user's tree has no src/gen.h: an early screen of a.c fails, a screen after the reference build passes.
      const compileSh = slowAfterA('$CFLAGS -include src/gen.h', "printf '#define GEN_THREADS 2\\n' > src/gen.h\n");
      const p = await makeProject({ compileSh });
      try {
        const patch = (line: string) => generatorPatch(p, 'src/a.c', insertBefore('for (i = 0', line));
        const considered = [
          suggestion(p, '1', { 'src/a.c': await patch('#pragma omp parallel for num_threads(GEN_THREADS)') }),
          suggestion(p, '2', { 'src/a.c': await patch('#pragma omp parallel for num_threads(NO_THREADS)') }),
        ];
        const run = await againstIsolated(p.dp, considered, { jobs: 2, scratch: p.scratch });
        expect(run.found).toEqual(run.isolated);
        expect(failing(run.found)).toEqual(['2']);
        expect(startedBeforeReference(run.events, '1')).toBe(true);
        const started = run.events.filter((e) => e.type === 'build-started' && 'id' in e && e.id === '1');
        expect(started.length).toBeGreaterThanOrEqual(2);
      } finally {
        await p.remove();
      }
    },
    120_000,
  );

  it.concurrent(
    'still refuse the run when the reference build fails after screens started, deciding none of them',
    async () => {
      const p = await makeProject({
        compileSh:
          '#!/bin/sh\ncd "$DP_PROJECT_ROOT_DIR" || exit 1\nmake CC="$CC" CFLAGS="$CFLAGS" src/a.o && sleep 3 && exit 1\n',
      });
      const pool = await BuildPool.create({
        dp: p.dp,
        scratchDir: p.scratch,
        jobs: 2,
        threads: 1,
        timeoutMs: 60_000,
        signal: new AbortController().signal,
        emit: p.emit,
      });
      try {
        const patch = await generatorPatch(p, 'src/a.c', insertBefore('for (i = 0', '#pragma omp parallel for'));
        const considered = [suggestion(p, '1', { 'src/a.c': patch })];
        const decided: string[] = [];
        const found = discover({
          dp: p.dp,
          considered,
          pool,
          emit: p.emit,
          onBuilt: async (id) => void decided.push(id),
        });
        await expect(found).rejects.toThrow(/does not build without any suggestion applied/);
        expect(p.events.some((e) => e.type === 'build-started' && 'id' in e && e.id === '1')).toBe(true);
        expect(decided).toEqual([]);
        expect(p.events.filter((e) => e.type === 'build-finished' && e.purpose === 'discovery')).toEqual([]);
      } finally {
        await pool.dispose();
        await p.remove();
      }
    },
    120_000,
  );
});

describe('screened discovery of the demo and the scale project', () => {
  it.concurrent(
    'the demo: the verdicts of isolated builds',
    async (test) => {
      const { dotDir } = useFixture('demo', test);
      const dp = await readDotDiscopop(dotDir, readdirSync(join(dotDir, 'project', 'configs'))[0]!);
      const run = await againstIsolated(dp, dp.suggestions, { jobs: 2, scratch: await scratchFor(test) });
      expect(run.found).toEqual(run.isolated);
      expect(screenNotice(run.events)).toBeDefined();
    },
    240_000,
  );

  it.concurrent(
    '40 units, 43 suggestions: the verdicts of isolated builds, with a handful of compile.sh runs',
    async (test) => {
      const base = await scratchFor(test);
      const { dp, broken } = await generateProject(base, 40, 43, 0);
      const run = await againstIsolated(dp, dp.suggestions, { jobs: 2, scratch: join(base, 'scratch') });
      expect(run.found).toEqual(run.isolated);
      expect(failing(run.found)).toEqual([...broken].sort());
      expect(run.scripts).toBeLessThanOrEqual(3);
    },
    240_000,
  );
});

async function scratchFor(test: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pr-screen-'));
  test.onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
