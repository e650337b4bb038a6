// npm run bench -- patch [--samples N]: the imperfection matrix (engine vs GNU patch vs jsdiff)
// and the time per apply on a 10,000-line file with a 200-hunk patch.
import { performance } from 'node:perf_hooks';
import { applyPatch as jsdiffApplyPatch } from 'diff';
import * as engine from '../../dist/patch/index.js';
import { runProcess } from '../../dist/process.js';
import { CELLS, REFUSAL_CELLS, formatTable, largeInput, runMatrix } from '../../test/patch/matrix.mjs';

function option(args, name, fallback) {
  const index = args.indexOf(name);
  return index >= 0 ? Number(args[index + 1]) : fallback;
}

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) * q)];
}

/**
 * Alternates the two contenders so that load on a shared machine hits both alike. Returns
 * [median, 10th percentile] per contender in ms; the percentile is the better estimate when the
 * machine is busy.
 */
function timeBoth(first, second, repeats) {
  for (let index = 0; index < 10; index++) {
    first();
    second();
  }
  const times = [[], []];
  for (let index = 0; index < repeats; index++) {
    [first, second].forEach((run, which) => {
      const started = performance.now();
      run();
      times[which].push(performance.now() - started);
    });
  }
  return times.map((list) => [quantile(list, 0.5), quantile(list, 0.1)]);
}

export default async function bench(args) {
  const samples = option(args, '--samples', 40);
  const started = performance.now();
  const { table, misplaced } = await runMatrix({ engine, runProcess, samples });
  const matrixSeconds = (performance.now() - started) / 1000;
  console.log(`Imperfection matrix: ${samples} samples per cell (${matrixSeconds.toFixed(1)} s)\n`);
  console.log(formatTable(table));

  const shortfalls = CELLS.filter((cell) => !REFUSAL_CELLS.has(cell)).flatMap((cell) =>
    ['GNU patch', 'jsdiff fuzz 2']
      .filter((other) => table[cell].engine.right < table[cell][other].right)
      .map((other) => `${cell}: engine ${table[cell].engine.right} < ${other} ${table[cell][other].right}`),
  );
  const refusalsMissed = [...REFUSAL_CELLS].filter((cell) => table[cell].engine.refused !== samples);
  console.log(
    `\nengine misplacements: ${misplaced.length}${misplaced.length ? ` (${misplaced.map((m) => `${m.cell}#${m.seed}`).join(', ')})` : ''}`,
  );
  console.log(`cells where another applier is right more often: ${shortfalls.length ? shortfalls.join('; ') : 'none'}`);
  console.log(`refusal cells not refused every time: ${refusalsMissed.length ? refusalsMissed.join(', ') : 'none'}`);

  const large = largeInput();
  const repeats = option(args, '--repeats', 301);
  let engineResult = null;
  let jsdiffResult = null;
  const [[engineMs, engineFast], [jsdiffMs, jsdiffFast]] = timeBoth(
    () => {
      engineResult = engine.applyFilePatch(large.source, engine.parsePatches(large.patch).patches[0]).result;
    },
    () => {
      jsdiffResult = jsdiffApplyPatch(large.source, large.patch);
    },
    repeats,
  );
  const same = engineResult !== null && engineResult === jsdiffResult;
  console.log(
    `\n${large.source.split('\n').length - 1}-line file, ${large.hunks}-hunk exact patch, ${repeats} runs each (median, 10th percentile):`,
  );
  console.log(`  engine (parse + apply): ${engineMs.toFixed(2)} ms, ${engineFast.toFixed(2)} ms`);
  console.log(`  jsdiff applyPatch:      ${jsdiffMs.toFixed(2)} ms, ${jsdiffFast.toFixed(2)} ms`);
  console.log(
    `  ratio ${(engineMs / jsdiffMs).toFixed(2)}, ${(engineFast / jsdiffFast).toFixed(2)} (target ≤ 2.00); identical results: ${same}`,
  );

  // The slow path: every hunk carries a made-up context line, so each one goes through the whole
  // fuzzy ladder including the one-line-gap shapes. No target; it shows what a bad answer costs.
  const spoiled = large.patch
    .split('\n')
    .flatMap((line) => (line.startsWith('+') && line.includes('#pragma') ? ['     /* made up */', line] : [line]))
    .join('\n');
  const fuzzyStarted = performance.now();
  const fuzzy = engine.applyFilePatch(large.source, engine.parsePatches(spoiled).patches[0]);
  const fuzzyMs = performance.now() - fuzzyStarted;
  console.log(
    `  engine, same patch with a made-up line in every hunk: ${fuzzyMs.toFixed(0)} ms (${fuzzy.hunks.filter((hunk) => hunk.status === 'fuzzy').length} hunks fuzzy, result ${fuzzy.result === engineResult ? 'identical' : 'DIFFERENT'})`,
  );
}
