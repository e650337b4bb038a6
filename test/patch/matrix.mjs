// The imperfection matrix shared by `npm run bench -- patch` and the test suite: synthetic C files,
// the generator's patch for one loop, that patch spoiled the ways models spoil patches, and three
// appliers run on each sample. Engine modules and the process runner are passed in, so the bench
// uses the built dist/ and the test the TypeScript sources.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyPatch as jsdiffApplyPatch } from 'diff';

/** Cells where refusing is the right answer, so no applier can "apply correctly" there. */
export const REFUSAL_CELLS = new Set(['identical loops, wrong line', 'wrong loop line under the pragma']);

export const CELLS = [
  'exact',
  'drift 1-5',
  'drift 6-50',
  'drift 51-200',
  'one wrong context line',
  'two wrong context lines',
  'missing context lines',
  'extra context lines',
  'context line left out inside the hunk',
  'context line made up inside the hunk',
  'trailing whitespace',
  're-indented hunk',
  'wrong header counts',
  'no header numbers (@@ @@)',
  'written against the patched file',
  'identical loops, wrong line',
  'wrong loop line under the pragma',
];

export const APPLIERS = ['engine', 'GNU patch', 'jsdiff fuzz 2'];

/** Deterministic random numbers (mulberry32), so a failing sample can be reproduced. */
export function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pickInt = (rng, low, high) => low + Math.floor(rng() * (high - low + 1));

function kernel(k, scale) {
  return [
    `void kernel_${k}(int n, double *x${k}, const double *y${k}) {`,
    '    int i;',
    `    double scale = ${k}.${scale};`,
    '    for (i = 0; i < n; i++) {',
    `        x${k}[i] = y${k}[i] * scale + ${k};`,
    '    }',
    '}',
    '',
  ];
}

/** Two functions whose loops and the three lines around them are identical. */
function twin(name) {
  return [
    `void ${name}(int n, double *x, const double *y) {`,
    '    int i;',
    '    double scale = 2.5;',
    '    double bias = 0.0;',
    '    for (i = 0; i < n; i++) {',
    '        x[i] = y[i] * scale + bias;',
    '    }',
    '}',
    '',
  ];
}

/** A C file of `kernels` loops; returns its lines and the 0-based line of each loop. */
export function makeSource(rng, kernels, twins = false) {
  const lines = ['#include <stdio.h>', '#include <stdlib.h>', ''];
  const loops = [];
  const twinSlots = twins
    ? [pickInt(rng, 0, Math.floor(kernels / 2)), pickInt(rng, Math.floor(kernels / 2) + 1, kernels)]
    : [];
  const twinLoops = [];
  for (let k = 0; k <= kernels; k++) {
    if (twinSlots.includes(k)) {
      twinLoops.push(lines.length + 4);
      lines.push(...twin(`twin_${twinLoops.length}`));
    }
    if (k === kernels) break;
    loops.push(lines.length + 3);
    lines.push(...kernel(k, pickInt(rng, 1, 9)));
  }
  return { lines, loops, twinLoops };
}

function pragmaFor(line) {
  const indent = /^\s*/.exec(line)[0];
  return `${indent}#pragma omp parallel for firstprivate(n) private(i) shared(x,y) `;
}

/** The generator's hunk: three lines of context around the inserted pragma. */
function generatorHunk(lines, loop, pragma) {
  return {
    oldStart: loop - 3 + 1,
    lines: [
      ...lines.slice(loop - 3, loop).map((text) => ({ kind: ' ', text })),
      { kind: '+', text: pragma },
      ...lines.slice(loop, loop + 3).map((text) => ({ kind: ' ', text })),
    ],
  };
}

function counts(hunk) {
  return {
    old: hunk.lines.filter((line) => line.kind !== '+').length,
    new: hunk.lines.filter((line) => line.kind !== '-').length,
  };
}

export function renderPatch(hunk, o = {}) {
  const { old, new: added } = counts(hunk);
  const header = o.noNumbers
    ? '@@ @@'
    : `@@ -${hunk.oldStart},${old + (o.countError ?? 0)} +${hunk.oldStart},${added + (o.countError ?? 0)} @@`;
  return [
    '--- /home/dev/demo/src/kernels.c\t2026-11-30 14:20:37.315505892 +0000',
    '+++ /home/dev/demo/src/kernels.c.discopop_patch_generator.temp\t2026-11-30 14:20:38.094634531 +0000',
    header,
    ...hunk.lines.map((line) => `${line.kind}${line.text}`),
    '',
  ].join('\n');
}

function withPragma(lines, loop, pragma) {
  return [...lines.slice(0, loop), pragma, ...lines.slice(loop)];
}

const join0 = (lines) => `${lines.join('\n')}\n`;

/** Changes a line the way a model misremembers it: a constant, a spacing or an invented line. */
function spoil(rng, text) {
  if (rng() < 0.5) return `    /* ${text.trim().slice(0, 12)} */ int tmp = 0;`;
  if (/\d/.test(text)) return text.replace(/\d/, (digit) => String((Number(digit) + 3) % 10));
  return `${text} // see above`;
}

function drifted(rng, hunk, low, high) {
  const drift = pickInt(rng, low, high) * (rng() < 0.5 ? -1 : 1);
  return { ...hunk, oldStart: Math.max(1, hunk.oldStart + drift) };
}

/** Indexes of context lines other than the loop line right under the pragma. */
function spoilableContext(hunk) {
  const plus = hunk.lines.findIndex((line) => line.kind === '+');
  return hunk.lines
    .map((line, index) => (line.kind === ' ' && index !== plus + 1 ? index : -1))
    .filter((index) => index >= 0);
}

function shuffled(rng, items) {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(rng() * (index + 1));
    [copy[index], copy[other]] = [copy[other], copy[index]];
  }
  return copy;
}

/**
 * One sample of a cell: the unpatched source, the generated patch, the candidate patch text and
 * the content a correct application produces.
 */
export function makeSample(cell, seed, kernels = 40) {
  const rng = random(seed);
  const twins = cell === 'identical loops, wrong line';
  const { lines, loops, twinLoops } = makeSource(rng, kernels, twins);
  const loop = twins ? twinLoops[0] : loops[pickInt(rng, 1, loops.length - 2)];
  const pragma = pragmaFor(lines[loop]);
  const generated = generatorHunk(lines, loop, pragma);
  const source = join0(lines);
  const expected = join0(withPragma(lines, loop, pragma));
  const sample = (candidate, o = {}) => ({
    cell,
    seed,
    source,
    generatedPatch: renderPatch(generated),
    candidatePatch: typeof candidate === 'string' ? candidate : renderPatch(candidate, o),
    expected: o.expected ?? expected,
  });
  const smallDrift = (hunk) => drifted(rng, hunk, 0, 10);
  const contextLines = (hunk, wrong) => {
    const out = structuredClone(hunk);
    for (const index of shuffled(rng, spoilableContext(out)).slice(0, wrong))
      out.lines[index].text = spoil(rng, out.lines[index].text);
    return smallDrift(out);
  };
  switch (cell) {
    case 'exact':
      return sample(generated);
    case 'drift 1-5':
      return sample(drifted(rng, generated, 1, 5));
    case 'drift 6-50':
      return sample(drifted(rng, generated, 6, 50));
    case 'drift 51-200':
      return sample(drifted(rng, generated, 51, 200));
    case 'one wrong context line':
      return sample(contextLines(generated, 1));
    case 'two wrong context lines':
      return sample(contextLines(generated, 2));
    case 'missing context lines': {
      const drop = pickInt(rng, 1, 2);
      const hunk = {
        oldStart: generated.oldStart + drop,
        lines: generated.lines.slice(drop, generated.lines.length - pickInt(rng, 0, 2)),
      };
      return sample(smallDrift(hunk));
    }
    case 'extra context lines': {
      const before = pickInt(rng, 1, 3);
      const after = pickInt(rng, 1, 3);
      const hunk = {
        oldStart: generated.oldStart - before,
        lines: [
          ...lines.slice(loop - 3 - before, loop - 3).map((text) => ({ kind: ' ', text })),
          ...generated.lines,
          ...lines.slice(loop + 3, loop + 3 + after).map((text) => ({ kind: ' ', text })),
        ],
      };
      return sample(smallDrift(hunk));
    }
    case 'context line left out inside the hunk': {
      const hunk = structuredClone(generated);
      const inner = spoilableContext(hunk).filter((index) => index > 0 && index < hunk.lines.length - 1);
      hunk.lines.splice(inner[pickInt(rng, 0, inner.length - 1)], 1);
      return sample(smallDrift(hunk));
    }
    case 'context line made up inside the hunk': {
      const hunk = structuredClone(generated);
      const plus = hunk.lines.findIndex((line) => line.kind === '+');
      const places = [1, 2, 3, 5, 6].filter((index) => index !== plus + 1);
      hunk.lines.splice(places[pickInt(rng, 0, places.length - 1)], 0, {
        kind: ' ',
        text: '    /* see the loop below */',
      });
      return sample(smallDrift(hunk));
    }
    case 'trailing whitespace': {
      const hunk = structuredClone(generated);
      for (const line of hunk.lines)
        if (line.kind === ' ' && rng() < 0.6) line.text = `${line.text}${rng() < 0.5 ? ' ' : '\t'}`;
      return sample(smallDrift(hunk));
    }
    case 're-indented hunk': {
      const hunk = structuredClone(generated);
      const shift = rng() < 0.5 ? '  ' : '';
      for (const line of hunk.lines) line.text = shift === '' ? line.text.replace(/^ {4}/, '') : `${shift}${line.text}`;
      return sample(smallDrift(hunk));
    }
    case 'wrong header counts':
      return sample(smallDrift(generated), { countError: rng() < 0.5 ? -pickInt(rng, 1, 3) : pickInt(rng, 1, 3) });
    case 'no header numbers (@@ @@)':
      return sample(generated, { noNumbers: true });
    case 'written against the patched file': {
      const changed = pragma.replace('private(i) ', '');
      const hunk = {
        oldStart: generated.oldStart,
        lines: generated.lines.flatMap((line) =>
          line.kind === '+'
            ? [
                { kind: '-', text: pragma },
                { kind: '+', text: changed },
              ]
            : [line],
        ),
      };
      return sample(smallDrift(hunk), { expected: join0(withPragma(lines, loop, changed)) });
    }
    case 'identical loops, wrong line': {
      const other = twinLoops[1];
      const miss = pickInt(rng, 1, 3) * (rng() < 0.5 ? -1 : 1);
      return sample({ ...generated, oldStart: other - 3 + 1 + miss });
    }
    case 'wrong loop line under the pragma': {
      const hunk = structuredClone(generated);
      const under = hunk.lines.findIndex((line) => line.kind === '+') + 1;
      hunk.lines[under].text = hunk.lines[under].text.replace('i < n', 'i <= n');
      return sample(smallDrift(hunk));
    }
    default:
      throw new Error(`unknown cell ${cell}`);
  }
}

const squeezeLines = (text) =>
  text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ''))
    .join('\n');

/** right: the pragma landed where it belongs (whitespace aside); wrong: applied elsewhere; refused. */
export function classify(result, expected) {
  if (result === null) return 'refused';
  return squeezeLines(result) === squeezeLines(expected) ? 'right' : 'wrong';
}

/** Every applier gets the same two tries: the unpatched source, then on top of the generated patch. */
async function twoTries(applyOne, sample) {
  const direct = await applyOne(sample.source, sample.candidatePatch);
  if (direct !== null) return direct;
  const patched = await applyOne(sample.source, sample.generatedPatch);
  return patched === null ? null : applyOne(patched, sample.candidatePatch);
}

export function engineApplier(engine) {
  return async (sample) => {
    const candidate = engine.parsePatches(sample.candidatePatch).patches;
    const generated = engine.parsePatches(sample.generatedPatch).patches;
    if (candidate.length !== 1) return null;
    const outcome = engine.applyPatchSet({
      sources: new Map([['1', sample.source]]),
      candidate: new Map([['1', candidate[0]]]),
      generated: new Map([['1', generated[0]]]),
    });
    return outcome.ok ? outcome.contents.get('1') : null;
  };
}

export function jsdiffApplier() {
  const applyOne = async (source, patch) => {
    try {
      const result = jsdiffApplyPatch(source, patch, { fuzzFactor: 2 });
      return result === false ? null : result;
    } catch {
      // jsdiff throws on hunks whose counts disagree with their body: a refusal.
      return null;
    }
  };
  return (sample) => twoTries(applyOne, sample);
}

/** GNU patch as DiscoPoP's applicator runs it: explicit target, default fuzz, no terminal. */
export async function gnuPatchApplier(runProcess) {
  const dir = await mkdtemp(join(tmpdir(), 'patch-bench-'));
  const applyOne = async (source, patch) => {
    await writeFile(join(dir, 'target.c'), source);
    await writeFile(join(dir, 'change.patch'), patch);
    const outcome = await runProcess({
      command: 'patch',
      args: ['--no-backup-if-mismatch', '--reject-file=-', 'target.c', 'change.patch'],
      cwd: dir,
      timeoutMs: 30_000,
    });
    if (outcome.kind !== 'exited' || outcome.exitCode !== 0) return null;
    return readFile(join(dir, 'target.c'), 'utf8');
  };
  return { apply: (sample) => twoTries(applyOne, sample), dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs every cell × applier on `samples` samples; returns counts per cell and applier. */
export async function runMatrix({ engine, runProcess, samples, kernels = 40, seed = 1 }) {
  const gnu = await gnuPatchApplier(runProcess);
  const appliers = { engine: engineApplier(engine), 'GNU patch': gnu.apply, 'jsdiff fuzz 2': jsdiffApplier() };
  const table = {};
  const misplaced = [];
  try {
    for (const cell of CELLS) {
      table[cell] = {};
      for (const name of APPLIERS) table[cell][name] = { right: 0, wrong: 0, refused: 0 };
      for (let index = 0; index < samples; index++) {
        const sample = makeSample(cell, seed * 100_003 + CELLS.indexOf(cell) * 1009 + index, kernels);
        for (const name of APPLIERS) {
          const verdict = classify(await appliers[name](sample), sample.expected);
          table[cell][name][verdict]++;
          if (verdict === 'wrong' && name === 'engine') misplaced.push({ cell, seed: sample.seed });
        }
      }
    }
  } finally {
    await gnu.dispose();
  }
  return { table, misplaced };
}

export function formatTable(table) {
  const header = `| imperfection | ${APPLIERS.map((name) => `${name} right / WRONG / refused`).join(' | ')} |`;
  const rule = `|---|${APPLIERS.map(() => '---').join('|')}|`;
  const rows = CELLS.map((cell) => {
    const marker = REFUSAL_CELLS.has(cell) ? ' (refusal expected)' : '';
    return `| ${cell}${marker} | ${APPLIERS.map((name) => {
      const { right, wrong, refused } = table[cell][name];
      return `${right} / ${wrong} / ${refused}`;
    }).join(' | ')} |`;
  });
  return [header, rule, ...rows].join('\n');
}

/** A 10,000-line file and an exact 200-hunk patch over it, for timing against jsdiff. */
export function largeInput() {
  const rng = random(42);
  const { lines, loops } = makeSource(rng, 1250);
  const chosen = loops.filter((_, index) => index % 6 === 0).slice(0, 200);
  const hunks = [];
  let shift = 0;
  for (const loop of chosen) {
    const hunk = generatorHunk(lines, loop, pragmaFor(lines[loop]));
    const { old, new: added } = counts(hunk);
    hunks.push(
      `@@ -${hunk.oldStart},${old} +${hunk.oldStart + shift},${added} @@`,
      ...hunk.lines.map((line) => `${line.kind}${line.text}`),
    );
    shift += added - old;
  }
  const patch = ['--- a/kernels.c', '+++ b/kernels.c', ...hunks, ''].join('\n');
  return { source: join0(lines.slice(0, 10_000)), patch, hunks: chosen.length };
}
