// --check-races on whole programs: every built-in repair of the own-shape programs
// (fixtures/shapes/<code>/) and, when BUILTIN_REAL_DIR names a copy of the real codes, of those
// (under both compilers' projects: the repair the gcc build led to and the one the clang build
// led to) is built with clang -fopenmp -fsanitize=thread -g -O1, as --check-races builds it, and
// run at 2 threads with LLVM's Archer. None may race in the lines its patch set adds (reductions,
// `declare reduction`, tasks with `depend`, `collapse`, `lastprivate` are all among them): a false
// positive there would reject a right repair. The whole set takes minutes (TSan builds), so the
// suite checks the first suggestion of each code; RACES_REAL_ALL=1 checks all of them and
// RACES_REAL_TABLE=<file> writes the rows (`npm run bench -- races` sets both).
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinRepair } from '../../src/builtin/index.js';
import { addedLineNumbers } from '../../src/build/apply.js';
import { runProcess } from '../../src/process.js';
import { parseTsanLog } from '../../src/repair/checks/tsan.js';
import {
  applyAndCompile,
  COMPILERS,
  inBatches,
  loadCodeFixtures,
  prepareFixture,
  REAL_DIR,
  realCodeSkipped,
  SHAPES_DIR,
  type CodeFixture,
  type CompilerName,
  type ProgramBuild,
} from './harness.js';

const RACE_FLAGS = ['-fopenmp', '-fsanitize=thread', '-g', '-O1'];

interface Row {
  family: CompilerName;
  fixture: string;
  repaired: boolean;
  /** Reports whose stack reaches a line the repair added: must be none. */
  inPatch: string[];
  elsewhere: number;
  raceSeconds: number;
  plainSeconds: number;
}

const scratch = await mkdtemp(join(tmpdir(), 'races-real-'));
const firstOfEach = !process.env['RACES_REAL_ALL'];
const fixtures: CodeFixture[] = [
  ...(await loadCodeFixtures(SHAPES_DIR, 'shapes/', scratch, { firstOfEach })),
  ...(REAL_DIR ? await loadCodeFixtures(REAL_DIR, '', scratch, { firstOfEach }) : []),
];
const rows: Row[] = [];
let runtime: string | null = null;

async function buildAndRun(
  dir: string,
  build: ProgramBuild,
  flags: string[],
  env: Record<string, string>,
): Promise<{ ok: boolean; output: string; seconds: number }> {
  const driver = build.sources.every((s) => s.endsWith('.c')) ? 'clang' : 'clang++';
  const compiled = await runProcess({
    command: driver,
    args: [...flags, ...build.flags, ...build.sources, '-o', 'race-program', ...(build.libs ?? [])],
    cwd: dir,
    timeoutMs: 300_000,
  });
  if (compiled.kind !== 'exited' || compiled.exitCode !== 0)
    return {
      ok: false,
      output: compiled.kind === 'exited' ? compiled.stdout + compiled.stderr : compiled.kind,
      seconds: 0,
    };
  const started = Date.now();
  const run = await runProcess({
    command: join(dir, 'race-program'),
    args: build.args ?? [],
    cwd: dir,
    env: { OMP_NUM_THREADS: '2', ...env },
    timeoutMs: 600_000,
  });
  return {
    ok: run.kind === 'exited',
    output: run.kind === 'exited' ? run.stdout + run.stderr : run.kind,
    seconds: (Date.now() - started) / 1000,
  };
}

beforeAll(async () => {
  const probe = await mkdtemp(join(scratch, 'probe-'));
  await writeFile(join(probe, 'p.c'), 'int main(void) { return 0; }\n');
  const linked = await runProcess({ command: 'clang', args: [...RACE_FLAGS, 'p.c', '-o', 'p'], cwd: probe });
  if (linked.kind !== 'exited' || linked.exitCode !== 0) {
    runtime =
      'clang -fsanitize=thread does not link here; install the Debian packages clang libclang-rt-14-dev libomp-14-dev';
    // .ci/run installs the runtime, so CI never passes by skipping.
    if (process.env.CI) throw new Error(`real-code-races.test.ts: ${runtime}`);
    console.warn(`real-code-races.test.ts: ${runtime}`);
    return;
  }
  // The race build is clang 14's TSan whichever compiler checked the repair, and clang 19's repairs
  // are clang 14's (test/builtin/classes.test.ts), so a third run would add time and no evidence.
  const checkedBy = COMPILERS.filter((compiler) => compiler !== 'clang-19');
  const jobs = checkedBy.flatMap((family) => fixtures.map((fixture) => ({ family, fixture })));
  await inBatches(jobs, 2, async ({ family, fixture }) => {
    const prepared = await prepareFixture(fixture, scratch, family);
    const result = prepared.task.build.ok ? null : await builtinRepair(prepared.task);
    const checked = result?.kind === 'answer' ? await applyAndCompile(prepared, result.text, scratch) : null;
    if (!checked?.compiled) return;
    const dir = join(scratch, family, fixture.name, 'verify');
    const added = addedLineNumbers(prepared.task.sources.get('1')!, checked.repaired);
    const logs = join(dir, 'tsan');
    const raced = await buildAndRun(dir, fixture.project.build, RACE_FLAGS, {
      TSAN_OPTIONS: `log_path=${logs} ignore_noninstrumented_modules=1 halt_on_error=0 exitcode=66`,
    });
    expect(raced.ok, `${family} ${fixture.name}: ${raced.output}`).toBe(true);
    const plain = await buildAndRun(dir, fixture.project.build, ['-fopenmp', '-O1'], {});
    const texts = await Promise.all(
      (await readdir(dir)).filter((f) => f.startsWith('tsan.')).map((f) => readFile(join(dir, f), 'utf8')),
    );
    const reports = texts.flatMap(parseTsanLog);
    const hits = (frames: { file: string | null; line: number | null }[]) =>
      frames.some((f) => f.file !== null && f.line !== null && f.file.endsWith(fixture.spec.file) && added.has(f.line));
    const inPatch = reports.filter((r) => hits(r.first.frames) || hits(r.previous.frames));
    rows.push({
      family,
      fixture: fixture.name,
      repaired: true,
      inPatch: inPatch.map(
        (r) =>
          `${r.first.kind} ${r.first.frames[0]?.file}:${r.first.frames[0]?.line} / ${r.previous.kind} ${r.previous.frames[0]?.file}:${r.previous.frames[0]?.line}${r.variable ? ` (${r.variable})` : ''}`,
      ),
      elsewhere: reports.length - inPatch.length,
      raceSeconds: raced.seconds,
      plainSeconds: plain.seconds,
    });
  });
}, 1_800_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
  if (process.env['RACES_REAL_TABLE']) await writeFile(process.env['RACES_REAL_TABLE'], JSON.stringify(rows, null, 1));
});

describe('--check-races on the built-in repairs of whole programs', () => {
  it('no built-in repair races in the lines it adds, under either compiler’s project', () => {
    if (runtime) return console.warn(`skipped: ${runtime}`);
    expect(rows.filter((row) => row.fixture.startsWith('shapes/')).length).toBeGreaterThan(
      process.env['RACES_REAL_ALL'] ? 20 : 5,
    );
    expect(
      rows
        .filter((row) => row.inPatch.length > 0)
        .map((row) => `${row.family} ${row.fixture}: ${row.inPatch.join('; ')}`),
    ).toEqual([]);
  });
});

// Without the real codes, one skipped test says how to add them.
if (REAL_DIR === undefined) it.skip(realCodeSkipped('test/builtin/real-code-races.test.ts'), () => {});
