// npm run bench -- builtin [--dataset DIR] [--kernels 500] [--samples 20] [--no-table]
// 1. Coverage: every fixture under fixtures/classes built with gcc 12, clang 14 and clang 19, run through the
//    built-in repairer by test/builtin/classes.test.ts (real compilers, GNU patch, check 5, the
//    program run with 1 and 4 threads); per class and compiler: repaired / handed on / wrong, and
//    the fixtures the compiler accepts as generated. Then the same for the suggestions on whole
//    programs (test/builtin/real-code.test.ts): the own-shape programs of fixtures/shapes/<code>/
//    always, and the real public HPC codes from --dataset DIR (or BUILTIN_REAL_DIR), a copy kept
//    outside the repository laid out the same way; per code and compiler repaired / declined /
//    wrong (the repaired program prints something else, must be 0) / builds as generated, the
//    declines by reason, and how many decisions differ from issue 20's target.
// 2. Speed: one builtinRepair call on a large translation unit: `--kernels` loop functions
//    (about 10 lines each) with a generated directive naming body locals on the last one, the
//    failing build from real gcc, the patch from real diff -Naru. Cold = first call in the process
//    (tree-sitter WebAssembly load included), warm = median of the following calls.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { builtinRepair } from '../../dist/builtin/index.js';
import { parseDiagnostics } from '../../dist/build/diagnostics.js';
import { runProcess } from '../../dist/process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * Classes a rule book answers deterministically; early exits, build failures outside the code and
 * DiscoPoP's device-update pseudo-directive (only deleting it compiles) are not.
 */
const NOT_DETERMINISTIC = new Set(['early-exit', 'link', 'patch-does-not-apply', 'pseudo-directive', 'other']);

/** Runs the vitest files with the table variables set; returns the exit code and what failed. */
async function runTables(files, env) {
  const run = await runProcess({
    command: join(ROOT, 'node_modules', '.bin', 'vitest'),
    args: ['run', ...files, '--reporter=dot'],
    cwd: ROOT,
    env,
    timeoutMs: 3_600_000,
  });
  if (run.kind !== 'exited') throw new Error(`vitest did not finish: ${run.kind}`);
  if (run.exitCode !== 0)
    console.log(
      `  (${files.join(', ')} failed: ${run.stdout
        .split('\n')
        .filter((line) => /FAIL|failed/.test(line))
        .slice(0, 5)
        .join(' | ')})`,
    );
}

/** The compilers the tests ran, in the harness's order (gcc 12, clang 14 as `clang`, `clang-19` where installed). */
function compilersIn(rows) {
  return ['gcc', 'clang', 'clang-19'].filter((compiler) => rows.some((row) => row.family === compiler));
}

function classTable(rows) {
  const compilers = compilersIn(rows);
  const classes = [...new Set(rows.map((row) => row.class))].sort();
  const count = (family, filter) => {
    const selected = rows.filter((row) => row.family === family && filter(row));
    const by = (outcome) => selected.filter((row) => row.outcome === outcome).length;
    return {
      fixtures: selected.length,
      builds: by('builds'),
      repaired: by('repaired'),
      handedOn: by('handed-on'),
      wrong: by('wrong'),
    };
  };
  const cell = (c) => `${c.repaired} / ${c.handedOn} / ${c.wrong}${c.builds > 0 ? ` (${c.builds} build)` : ''}`;
  console.log(
    'fixtures repaired / handed on / wrong, per compiler ("build": the compiler accepts the generated patch)',
  );
  console.log(`| class | fixtures | ${compilers.join(' | ')} |`);
  console.log(`|---|---|${compilers.map(() => '---').join('|')}|`);
  for (const name of classes) {
    const cells = compilers.map((family) => count(family, (row) => row.class === name));
    console.log(`| ${name} | ${cells[0].fixtures} | ${cells.map(cell).join(' | ')} |`);
  }
  const totals = compilers.map((family) => count(family, () => true));
  console.log(`| **total** | ${totals[0].fixtures} | ${totals.map(cell).join(' | ')} |`);
  for (const family of compilers) {
    const t = count(family, () => true);
    const d = count(family, (row) => !NOT_DETERMINISTIC.has(row.class) && row.outcome !== 'builds');
    console.log(
      `${family}: ${t.repaired} repaired, ${t.handedOn} handed on, ${t.wrong} wrong, ${t.builds} build as generated; deterministic classes: ${d.repaired}/${d.fixtures} failing fixtures repaired (${((100 * d.repaired) / d.fixtures).toFixed(1)} %)`,
    );
  }
  for (const row of rows.filter((r) => r.outcome === 'wrong'))
    console.log(`  wrong: ${row.family} ${row.fixture}: ${row.reasons.join('; ')}`);
}

/** A decline's reason without its file and line, the names it quotes and the compiler's words. */
function reasonKind(reason) {
  return reason
    .replace(/^[^:]+: line \d+: /, '')
    .replace(/'[^']*'/g, "'…'")
    .replace(/ \((?:[^()]|\([^()]*\))*\)$/, '')
    .replace(/\(line \d+\)/g, '(line …)');
}

/** Whether a run's decision is what issue 20 wants: repaired, or declined naming the stated reason. */
function onTarget(row) {
  if (row.outcome === 'builds') return true;
  if (row.target === 'repaired') return row.outcome === 'repaired';
  return row.outcome === 'handed-on' && (row.targetReason === undefined || row.reason.includes(row.targetReason));
}

function realTable(title, rows) {
  const compilers = compilersIn(rows);
  const codes = [...new Set(rows.map((row) => row.code))].sort();
  const count = (family, filter) => {
    const selected = rows.filter((row) => row.family === family && filter(row));
    const by = (outcome) => selected.filter((row) => row.outcome === outcome).length;
    return {
      suggestions: selected.length,
      builds: by('builds'),
      repaired: by('repaired'),
      declined: by('handed-on'),
      wrong: by('wrong'),
      offTarget: selected.filter((row) => !onTarget(row)).length,
    };
  };
  const cell = (c) => `${c.repaired} / ${c.declined} / ${c.wrong} / ${c.builds}`;
  console.log(
    `\n${title}: suggestions repaired / declined / wrong / build as generated, per compiler; "off target": decisions issue 20 wants otherwise`,
  );
  console.log(`| code | suggestions | ${compilers.join(' | ')} | off target (${compilers.join(' / ')}) |`);
  console.log(`|---|---|${compilers.map(() => '---').join('|')}|---|`);
  for (const code of [...codes, 'total']) {
    const cells = compilers.map((family) => count(family, (row) => code === 'total' || row.code === code));
    console.log(
      `| ${code === 'total' ? '**total**' : code} | ${cells[0].suggestions} | ${cells.map(cell).join(' | ')} | ${cells.map((c) => c.offTarget).join(' / ')} |`,
    );
  }
  for (const family of compilers) {
    const declined = rows.filter((row) => row.family === family && row.outcome === 'handed-on');
    const byReason = new Map();
    for (const row of declined)
      byReason.set(reasonKind(row.reason), [...(byReason.get(reasonKind(row.reason)) ?? []), row.fixture]);
    console.log(`${family} declines by reason:`);
    for (const [reason, fixtures] of [...byReason].sort((a, b) => b[1].length - a[1].length))
      console.log(`  ${fixtures.length} × ${reason} (${fixtures.join(', ')})`);
  }
  for (const row of rows.filter((r) => r.outcome === 'wrong'))
    console.log(`  wrong: ${row.family} ${row.fixture}: ${row.reasons.join('; ')}`);
}

async function coverage(dataset) {
  const dir = await mkdtemp(join(tmpdir(), 'bench-builtin-table-'));
  try {
    const classes = join(dir, 'classes.json');
    const real = join(dir, 'real.json');
    await runTables(['test/builtin/classes.test.ts', 'test/builtin/real-code.test.ts'], {
      BUILTIN_TABLE: classes,
      BUILTIN_REAL_TABLE: real,
      ...(dataset && { BUILTIN_REAL_DIR: dataset }),
    });
    classTable(JSON.parse(await readFile(classes, 'utf8')));
    const rows = JSON.parse(await readFile(real, 'utf8'));
    realTable(
      'own-shape programs (fixtures/shapes)',
      rows.filter((row) => row.shape),
    );
    if (dataset)
      realTable(
        `real code (${dataset})`,
        rows.filter((row) => !row.shape),
      );
    else
      console.log(
        '\nreal code: not measured; npm run bench -- builtin --dataset <folder of real codes laid out as fixtures/shapes> (or BUILTIN_REAL_DIR) measures it',
      );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function option(args, name, fallback) {
  const index = args.indexOf(name);
  return index >= 0 ? Number(args[index + 1]) : fallback;
}

function kernel(k) {
  return [
    `double kernel_${k}(int n, double *a, const double *b) {`,
    '    double s = 0.0;',
    '    for (int i = 0; i < n; i++) {',
    `        double t = b[i] * ${k}.5;`,
    '        double u = t * t;',
    '        a[i] = u;',
    '        s += u;',
    '    }',
    '    return s;',
    '}',
  ];
}

export default async function bench(args) {
  const datasetAt = args.indexOf('--dataset');
  const dataset = datasetAt >= 0 ? args[datasetAt + 1] : process.env.BUILTIN_REAL_DIR || undefined;
  if (dataset !== undefined && !existsSync(dataset)) {
    console.error(`bench builtin: --dataset ${dataset}: no such folder`);
    process.exit(2);
  }
  if (!args.includes('--no-table')) await coverage(dataset && resolve(dataset));
  const kernels = option(args, '--kernels', 500);
  const samples = option(args, '--samples', 20);
  const dir = await mkdtemp(join(tmpdir(), 'bench-builtin-'));
  try {
    const original = `${Array.from({ length: kernels }, (_, k) => kernel(k).join('\n')).join('\n\n')}\n`;
    const lines = original.split('\n');
    const loopRow = lines.lastIndexOf('    for (int i = 0; i < n; i++) {');
    lines.splice(loopRow, 0, '    #pragma omp parallel for private(i,t,u) shared(a,b) reduction(+:s) ');
    const patched = lines.join('\n');
    const source = join(dir, 'src', 'kernels.c');
    await mkdir(join(dir, 'src'));
    await writeFile(source, original);
    await writeFile(`${source}.discopop_patch_generator.temp`, patched);
    const diff = await runProcess({
      command: 'diff',
      args: ['-Naru', source, `${source}.discopop_patch_generator.temp`],
      cwd: dir,
    });
    await writeFile(join(dir, 'src', 'build.c'), patched);
    const gcc = await runProcess({
      command: 'gcc',
      args: ['-fopenmp', '-c', 'src/build.c', '-o', '/dev/null'],
      cwd: dir,
      env: { LC_ALL: 'C' },
    });
    const output = (gcc.stdout + gcc.stderr).replaceAll('src/build.c', 'src/kernels.c');
    const dp = { projectRoot: dir, files: new Map([['1', { id: '1', path: source, relPath: 'src/kernels.c' }]]) };
    const task = {
      suggestion: {
        id: '1',
        dir,
        pattern: null,
        hotspot: null,
        files: [
          {
            fileId: '1',
            patchPath: join(dir, '1.patch'),
            text: diff.stdout,
            source: { id: '1', path: source, relPath: 'src/kernels.c' },
          },
        ],
      },
      sources: new Map([['1', original]]),
      generated: new Map([['1', diff.stdout]]),
      patched: new Map([['1', patched]]),
      build: { ok: false, failedAt: 'compile', output, diagnostics: parseDiagnostics(output, dp, dir), durationMs: 0 },
    };
    let started = performance.now();
    const first = await builtinRepair(task);
    const coldMs = performance.now() - started;
    if (first.kind !== 'answer') throw new Error(`builtin declined: ${first.reason}`);
    const warm = [];
    for (let sample = 0; sample < samples; sample++) {
      started = performance.now();
      await builtinRepair(task);
      warm.push(performance.now() - started);
    }
    warm.sort((a, b) => a - b);
    console.log(`builtinRepair on ${lines.length} lines (${kernels} kernels), rules ${first.rules.join(', ')}`);
    console.log(
      `  cold ${coldMs.toFixed(1)} ms (tree-sitter load included), warm median ${warm[Math.floor(warm.length / 2)].toFixed(1)} ms over ${samples} calls`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
