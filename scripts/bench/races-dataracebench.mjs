// npm run bench -- races --dataset DIR [--only DRB001,DRB002] [--limit N] [--jobs N] [--run-timeout S]: --check-races over
// DataRaceBench's C kernels (DIR holds micro-benchmarks/DRB*-yes.c / -no.c, a copy kept outside
// the tree). Each kernel becomes a project whose reference is the kernel with its OpenMP
// directives removed and whose one generated suggestion puts them back; `--check-races all`
// checks that suggestion as it builds. A kernel counts as racy when its race check reports a race;
// precision and recall are against the file name's label, beside Archer's published figures.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProcess } from '../../dist/process.js';
import { resultsOf } from '../../dist/formats/results-document.js';
import { writeRunProject } from '../../test/helpers/run-project-files.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli.js');
/** Archer on DataRaceBench as its authors report it (Atzeni et al., IPDPS 2016; DataRaceBench's evaluation). */
const ARCHER = { recall: 0.79, precision: 0.98 };

function option(args, name) {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

/** The kernel without its directives (continuation lines included), and whether it had any. */
function withoutDirectives(source) {
  const kept = [];
  let continued = false;
  let found = 0;
  for (const line of source.split('\n')) {
    const directive = continued || /^\s*#\s*pragma\s+omp\b/.test(line);
    continued = directive && /\\\s*$/.test(line);
    if (directive) found++;
    else kept.push(line);
  }
  return { reference: kept.join('\n'), found };
}

/** Why a kernel is left out, or null: one self-contained C file. */
function leftOut(source) {
  if (/#\s*include\s*"/.test(source)) return 'includes a header of the suite';
  return null;
}

async function unifiedDiff(scratch, root, reference, kernel) {
  await writeFile(join(scratch, 'a.c'), reference);
  await writeFile(join(scratch, 'b.c'), kernel);
  const run = await runProcess({ command: 'diff', args: ['-U3', 'a.c', 'b.c'], cwd: scratch, timeoutMs: 30_000 });
  const body = run.stdout.split('\n').slice(2).join('\n');
  return `--- ${root}/src/main.c\n+++ ${root}/src/main.c.discopop_patch_generator.temp\n${body}`;
}

async function measure(file, source, scratch, runTimeout) {
  const { reference, found } = withoutDirectives(source);
  if (found === 0) return { outcome: 'left out', why: 'no OpenMP directive' };
  const { root, dot } = await writeRunProject({
    mainC: reference,
    loopLine: 1,
    generated: '',
    seqCflags: '-O1 -fopenmp',
  });
  try {
    await writeFile(join(dot, 'patch_generator', '1', '1.patch'), await unifiedDiff(scratch, root, reference, source));
    const run = await runProcess({
      command: process.execPath,
      args: [
        CLI,
        '--dot-dp-path',
        dot,
        '--backend',
        'builtin',
        '--check-races',
        'all',
        '--run-threads',
        '4',
        '--run-timeout',
        runTimeout,
      ],
      cwd: dot,
      timeoutMs: 900_000,
    });
    const line = (run.stderr ?? '').split('\n').find((l) => l.startsWith('patch-repair:'));
    if (run.kind !== 'exited' || run.exitCode !== 0)
      return { outcome: 'not measured', why: line ?? `exit ${run.exitCode}` };
    const results = resultsOf(JSON.parse(await readFile(join(dot, 'patch_repair', 'results.json'), 'utf8')));
    const record = results.suggestions[0];
    const check = record?.race_check;
    if (!check || check.verdict === 'not-run')
      return {
        outcome: 'not measured',
        why: `status ${record?.status}: ${check?.detail ?? record?.first_error ?? 'no race check'}`,
      };
    const racy = check.verdict === 'races' || check.verdict === 'races_elsewhere';
    const pair = check.reports[0];
    return {
      outcome: racy ? 'race' : 'no race',
      why: pair
        ? `${pair.first.kind} at ${pair.first.location} with ${pair.previous.kind} at ${pair.previous.location}`
        : (check.detail ?? 'no report'),
      compiler: check.compiler,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

export default async function dataRaceBench(args) {
  const dataset = option(args, '--dataset');
  const dir = dataset && join(dataset, 'micro-benchmarks');
  if (!dir || !existsSync(dir)) {
    console.error(
      'races: --dataset DIR must be a copy of github.com/LLNL/dataracebench (DIR/micro-benchmarks missing)',
    );
    process.exit(2);
  }
  const only = option(args, '--only')?.split(',');
  const limit = Number(option(args, '--limit') ?? Infinity);
  const files = (await readdir(dir))
    .filter((name) => /^DRB\d+-.*-(yes|no)\.c$/.test(name))
    .filter((name) => !only || only.some((id) => name.startsWith(id)))
    .sort()
    .slice(0, limit);
  const jobs = Number(option(args, '--jobs') ?? 2);
  // A kernel whose reference spins without its directives (a hand-made barrier) would hold a race run for 15 × this.
  const runTimeout = option(args, '--run-timeout') ?? '4';
  const rows = [];
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'bench-drb-'));
    try {
      while (next < files.length) {
        const name = files[next++];
        const source = await readFile(join(dir, name), 'utf8');
        const label = name.endsWith('-yes.c') ? 'race' : 'no race';
        const out = leftOut(source);
        const row = {
          name,
          label,
          ...(out ? { outcome: 'left out', why: out } : await measure(name, source, scratch, runTimeout)),
        };
        rows.push(row);
        console.log(
          `${name}: ${row.outcome}${row.outcome !== label && row.outcome !== 'left out' ? ` (label: ${label})` : ''}; ${row.why}`,
        );
      }
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  };
  await Promise.all(Array.from({ length: jobs }, worker));
  rows.sort((a, b) => a.name.localeCompare(b.name));
  const measured = rows.filter((r) => r.outcome === 'race' || r.outcome === 'no race');
  const tp = measured.filter((r) => r.outcome === 'race' && r.label === 'race').length;
  const fp = measured.filter((r) => r.outcome === 'race' && r.label === 'no race').length;
  const fn = measured.filter((r) => r.outcome === 'no race' && r.label === 'race').length;
  const ratio = (a, b) => (b === 0 ? 'n/a' : (a / b).toFixed(2));
  console.log(
    `\nDataRaceBench C kernels: ${files.length} (${rows.filter((r) => r.outcome === 'left out').length} left out, ${rows.filter((r) => r.outcome === 'not measured').length} not measured, ${measured.length} measured) in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  console.log(
    `true positives ${tp}, false positives ${fp}, false negatives ${fn}, true negatives ${measured.length - tp - fp - fn}`,
  );
  console.log(
    `precision ${ratio(tp, tp + fp)} (Archer ${ARCHER.precision}), recall ${ratio(tp, tp + fn)} (Archer ${ARCHER.recall})`,
  );
  for (const r of measured.filter((row) => row.outcome !== row.label))
    console.log(`  wrong: ${r.name}: ${r.outcome === 'race' ? 'reported a race' : 'no race reported'} (${r.why})`);
  for (const r of rows.filter((row) => row.outcome === 'not measured'))
    console.log(`  not measured: ${r.name}: ${r.why}`);
}
