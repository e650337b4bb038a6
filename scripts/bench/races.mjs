// npm run bench -- races [--dataset DIR]: --check-races on the built-in repairs of the own-shape
// programs of fixtures/shapes and, from --dataset DIR (or BUILTIN_REAL_DIR), of the real codes
// kept outside the repository (both compilers' projects; test/builtin/real-code-races.test.ts with
// RACES_REAL_ALL=1): candidates checked,
// races found in the lines a repair adds (false positives: must be 0), races elsewhere, and the
// time of a race run against a plain run of the same program (clang -fopenmp -O1, 2 threads).
// Then the three racing repairs of test/pipeline/check-races.test.ts through the CLI.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProcess } from '../../dist/process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function vitest(files, env) {
  const started = Date.now();
  const run = await runProcess({
    command: join(ROOT, 'node_modules', '.bin', 'vitest'),
    args: ['run', ...files, '--reporter=dot'],
    cwd: ROOT,
    env,
    timeoutMs: 3_600_000,
  });
  if (run.kind !== 'exited') throw new Error(`vitest did not finish: ${run.kind}`);
  return { ok: run.exitCode === 0, seconds: (Date.now() - started) / 1000, output: run.stdout };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)];
};

function summarize(title, rows) {
  const falsePositives = rows.filter((row) => row.inPatch.length > 0);
  const ratios = rows.filter((row) => row.plainSeconds > 0).map((row) => row.raceSeconds / row.plainSeconds);
  console.log(
    `${title}: built-in repairs race-checked: ${rows.length} (gcc ${rows.filter((r) => r.family === 'gcc').length}, clang ${rows.filter((r) => r.family === 'clang').length})`,
  );
  console.log(`  races in the lines a repair adds (false positives, must be 0): ${falsePositives.length}`);
  for (const row of falsePositives) console.log(`    ${row.family} ${row.fixture}: ${row.inPatch.join('; ')}`);
  console.log(
    `  repairs with races elsewhere in the program (evidence only): ${rows.filter((r) => r.elsewhere > 0).length}`,
  );
  console.log(
    `  race run / plain run time, median over programs: ${median(ratios).toFixed(1)}× (min ${Math.min(...ratios).toFixed(1)}×, max ${Math.max(...ratios).toFixed(1)}×)`,
  );
}

export default async function races(args) {
  const datasetAt = args.indexOf('--dataset');
  const dataset = datasetAt >= 0 ? args[datasetAt + 1] : process.env.BUILTIN_REAL_DIR || undefined;
  if (dataset !== undefined && !existsSync(dataset)) {
    console.error(`bench races: --dataset ${dataset}: no such folder`);
    process.exit(2);
  }
  const dir = await mkdtemp(join(tmpdir(), 'bench-races-'));
  try {
    const table = join(dir, 'rows.json');
    const real = await vitest(['test/builtin/real-code-races.test.ts'], {
      RACES_REAL_ALL: '1',
      RACES_REAL_TABLE: table,
      ...(dataset && { BUILTIN_REAL_DIR: resolve(dataset) }),
    });
    const rows = JSON.parse(await readFile(table, 'utf8'));
    if (!dataset)
      console.log(
        'real code: not race-checked; npm run bench -- races --dataset <folder of real codes laid out as fixtures/shapes> (or BUILTIN_REAL_DIR) adds it',
      );
    console.log(`race-checked in ${real.seconds.toFixed(0)} s`);
    summarize(
      'own-shape programs (fixtures/shapes)',
      rows.filter((row) => row.fixture.startsWith('shapes/')),
    );
    if (dataset)
      summarize(
        `real code (${dataset})`,
        rows.filter((row) => !row.fixture.startsWith('shapes/')),
      );
    const racing = await vitest(['test/pipeline/check-races.test.ts'], {});
    console.log(
      `racing repairs (shared temporary, array reduction made shared, inner index not private): ${racing.ok ? '3 of 3 rejected with the line named, the right repairs accepted' : 'FAILED, see test/pipeline/check-races.test.ts'} (${racing.seconds.toFixed(0)} s)`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
