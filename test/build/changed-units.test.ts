// Verification builds that compile only what changed (src/build/screening/changed-units.ts)
// against whole compile.sh builds, as the screen tests compare discovery with isolated builds: under
// gcc and clang, each patch set's check-6 build has the verdict, failing stage, class and first
// error of the whole build, while the units a patch set leaves alone are never compiled again.
import { describe, expect, it } from 'vitest';
import { BuildPool } from '../../src/build/pool.js';
import { changedUnitsFirst } from '../../src/build/screening/changed-units.js';
import { generatedPatchSet } from '../../src/build/discover.js';
import type { BuildResult } from '../../src/formats/types.js';
import { generatorPatch, insertBefore, makeProject, suggestion } from './project.js';

const verdict = (b: BuildResult) => ({
  ok: b.ok,
  failedAt: b.failedAt,
  errorClass: b.errorClass,
  firstError: b.firstError,
});

describe.each(['gcc', 'clang'])('check 6 builds under %s', (cc) => {
  it.concurrent(
    'compile only the changed units, then link, with the verdict, class and first error of a whole build',
    async () => {
      const p = await makeProject({ settings: { CC: cc, CFLAGS: '-O0 -fopenmp -Wall' } });
      const signal = new AbortController().signal;
      const pools: BuildPool[] = [];
      const pool = async () => {
        const made = await BuildPool.create({
          dp: p.dp,
          scratchDir: p.scratch,
          jobs: 2,
          threads: 1,
          timeoutMs: 120_000,
          signal,
          emit: () => undefined,
        });
        pools.push(made);
        return made;
      };
      try {
        const patch = (rel: string, line: string, before = 'for (i = 0') =>
          generatorPatch(p, rel, insertBefore(before, line));
        const candidates = [
          suggestion(p, '1', { 'src/a.c': await patch('src/a.c', '#pragma omp parallel for private(i)') }),
          suggestion(p, '2', { 'src/b.c': await patch('src/b.c', '#pragma omp parallel for private(t)') }),
          suggestion(p, '3', { 'src/b.c': await patch('src/b.c', '#pragma omp parallel for') }),
          // Two units, one failing: the whole build again, so make's order decides the first error.
          suggestion(p, '4', {
            'src/a.c': await patch('src/a.c', '#pragma omp parallel for shared(x)'),
            'src/b.c': await patch('src/b.c', '#pragma omp parallel for firstprivate(i) private(i)'),
          }),
          suggestion(p, '5', { 'src/common.h': await patch('src/common.h', '#define EXTRA 1', 'void fill_a') }),
          // Compiles on its own, fails to link: compile.sh, linking the unit's object, says so.
          suggestion(p, '6', {
            'src/main.c': await generatorPatch(p, 'src/main.c', (text) =>
              insertBefore(
                '    fill_a(x);',
                '    no_such_function();',
              )(insertBefore('int main', 'extern void no_such_function(void);')(text)),
            ),
          }),
          // A directive the compiler ignores with a warning on an added line: the unit's output decides.
          suggestion(p, '7', { 'src/a.c': await patch('src/a.c', '#pragma omp paralel for shared(x)') }),
          suggestion(p, '8', { 'src/b.c': await patch('src/a.c', '#define NOTHING', 'const char *a_mark') }),
          suggestion(p, '9', {
            'src/a.c': await patch('src/a.c', '#pragma omp parallel for'),
            'src/main.c': await patch('src/main.c', '#pragma omp parallel', '    fill_a(x);'),
          }),
        ];
        const units = await pool();
        const whole = await pool();
        const verify = changedUnitsFirst(p.dp, units);
        const first = await Promise.all(candidates.map((s) => verify.build(s.id, generatedPatchSet(s), 'verify')));
        const alone = await Promise.all(candidates.map((s) => whole.build(s.id, generatedPatchSet(s), 'verify')));
        const ids = candidates.map((s) => s.id);
        expect(Object.fromEntries(ids.map((id, i) => [id, verdict(first[i]!)]))).toEqual(
          Object.fromEntries(ids.map((id, i) => [id, verdict(alone[i]!)])),
        );
        const failing = ids.filter((_, i) => !first[i]!.ok);
        expect(failing).toEqual(['2', '4', '6', '7', '8']);
        // 5 (a header) is built whole; 4 fails at one of two units and is built whole again; 2 is
        // decided by its one unit, and so is 7 under clang, which rejects `paralel` where gcc only
        // warns that it ignores it (its unit then compiles, and the warning fails the build).
        const decided = cc === 'clang' ? 2 : 1;
        expect(verify.counts, `${cc} ${JSON.stringify(verify.counts)}`).toEqual({
          unitsFirst: 7 - decided,
          decidedByUnit: decided,
          whole: 2,
        });
        // 3 changes b.c: compile.sh linked the object its unit compile made, compiling nothing else.
        const three = first[ids.indexOf('3')]!.output;
        expect(three).toMatch(/-c -o src\/b\.o/);
        expect(three).not.toMatch(/-c -o src\/(?:a|main)\.o/);
        expect(three.match(/-c -o src\/b\.o/g)).toHaveLength(1);
        expect(three).toMatch(/-o prog /);
        // --check-run's build hands its workspace to the program's runs before the rollback.
        const ran = await verify.buildThen(
          '3',
          generatedPatchSet(candidates[2]!),
          'verify',
          async (program) => typeof program.run,
        );
        expect(ran).toMatchObject({ build: { ok: true }, ran: 'function' });
      } finally {
        await Promise.all(pools.map((made) => made.dispose()));
        await p.remove();
      }
    },
    240_000,
  );
});
