// npm run bench -- builtin [--kernels 500] [--samples 20]
// Time of one builtinRepair call on a large translation unit: `--kernels` loop functions
// (about 10 lines each) with a generated directive naming body locals on the last one, the
// failing build from real gcc, the patch from real diff -Naru. Cold = first call in the process
// (tree-sitter WebAssembly load included), warm = median of the following calls.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { builtinRepair } from '../../dist/builtin/index.js';
import { runProcess } from '../../dist/process.js';

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
    const diff = await runProcess({ command: 'diff', args: ['-Naru', source, `${source}.discopop_patch_generator.temp`], cwd: dir });
    await writeFile(join(dir, 'src', 'build.c'), patched);
    const gcc = await runProcess({ command: 'gcc', args: ['-fopenmp', '-c', 'src/build.c', '-o', '/dev/null'], cwd: dir, env: { LC_ALL: 'C' } });
    const task = {
      suggestion: {
        id: '1', dir, pattern: null, hotspot: null,
        files: [{ fileId: '1', patchPath: join(dir, '1.patch'), text: diff.stdout, source: { id: '1', path: source, relPath: 'src/kernels.c' } }],
      },
      sources: new Map([['1', original]]),
      generated: new Map([['1', diff.stdout]]),
      patched: new Map([['1', patched]]),
      build: { ok: false, failedAt: 'compile', output: (gcc.stdout + gcc.stderr).replaceAll('src/build.c', 'src/kernels.c'), diagnostics: [], durationMs: 0 },
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
    console.log(`  cold ${coldMs.toFixed(1)} ms (tree-sitter load included), warm median ${warm[Math.floor(warm.length / 2)].toFixed(1)} ms over ${samples} calls`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
