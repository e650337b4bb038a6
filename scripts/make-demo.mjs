#!/usr/bin/env node
// Regenerates fixtures/demo/.discopop from the demo sources, as DiscoPoP 5.0.2 would have left it
// for a project at /home/dev/demo: FileMapping, explorer and optimizer patterns, hotspots, line
// mapping, the project configuration, and one patch folder per suggestion made exactly like the
// patch generator makes them (pragma inserted before the start line with its indentation, real
// `diff -Naru` of the original against `<file>.discopop_patch_generator.temp`). The diff runs on a
// copy placed under a temporary root; only that root is rewritten to /home/dev/demo afterwards.
//
// Usage: node scripts/make-demo.mjs [--out DIR]   (default: fixtures/demo/.discopop; the tests
// generate into a temporary DIR and compare it with the committed folder)
// This is a developer tool that prepares committed test data, not part of patch-repair, so it
// runs diff and touch itself rather than through src/process.ts.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PROJECT_ROOT = '/home/dev/demo';
const DEMO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/demo');
const DOT = outputDir() ?? path.join(DEMO, '.discopop');
const VERSION = '5.0.2';
// FileMapping ids follow the order the instrumented build first saw the files (the Makefile's OBJS).
const FILES = ['src/main.c', 'src/stencil.c', 'src/dot.c', 'src/histogram.c', 'src/matvec.c', 'src/smooth.c'];
// Fixed times keep regenerated patches byte-identical: sources last edited in the morning, the
// patch generator's temp files written one after another in the afternoon run.
const SOURCE_MTIME = 1796030531.482907113;
const GENERATOR_START = 1796048437.315505892;

function outputDir() {
  const at = process.argv.indexOf('--out');
  if (at < 0) return undefined;
  const dir = process.argv[at + 1];
  if (!dir) throw new Error('--out needs a directory');
  return path.resolve(dir);
}

const sources = new Map(FILES.map((rel, index) => [index + 1, readFileSync(path.join(DEMO, rel), 'utf8')]));

function linesOf(fid) {
  return sources.get(fid).split('\n').slice(0, -1);
}

/** The loop of `function` whose header contains `header`: its first and last line, 1-based. */
function loop(fid, functionName, header) {
  const lines = linesOf(fid);
  const fnLine = lines.findIndex((l) => new RegExp(`^\\w[\\w\\s*]*\\b${functionName}\\(`).test(l));
  const start = lines.findIndex((l, i) => i > fnLine && l.includes(header));
  if (fnLine < 0 || start < 0) throw new Error(`${FILES[fid - 1]}: no loop "${header}" in ${functionName}`);
  return { fid, start: start + 1, end: blockEnd(lines, start) + 1, functionName, functionLine: fnLine + 1 };
}

/** A function's first line (its signature) and last line (its closing brace). */
function functionSpan(fid, functionName) {
  const lines = linesOf(fid);
  const fnLine = lines.findIndex((l) => new RegExp(`^\\w[\\w\\s*]*\\b${functionName}\\(`).test(l));
  return { fid, start: fnLine + 1, end: blockEnd(lines, fnLine) + 1, functionName, functionLine: fnLine + 1 };
}

/** The line whose `}` closes the block opened at or after `from` (a braceless body ends on the next line). */
function blockEnd(lines, from) {
  let depth = 0;
  let opened = false;
  for (let i = from; i < lines.length; i++) {
    for (const ch of lines[i]) {
      if (ch === '{') {
        depth++;
        opened = true;
      } else if (ch === '}') depth--;
    }
    if (opened && depth === 0) return i;
    if (!opened && i > from && lines[i].trim().endsWith(';')) return i;
  }
  throw new Error(`unbalanced braces after line ${from + 1}`);
}

const lineId = (fid, line) => `${fid}:${line}`;
const range = (from, to) => Array.from({ length: to - from + 1 }, (_, k) => from + k);

/** PatternBase + PatternInfo fields, in the order the explorer's serializer writes them. */
function common({ id, cu, span, iterations, workload }) {
  return {
    pattern_id: id,
    node_id: lineId(span.fid, cu),
    start_line: lineId(span.fid, span.start),
    end_line: lineId(span.fid, span.end),
    applicable_pattern: true,
    standalone_pattern: true,
    pattern_tag: '',
    affected_cu_ids: [lineId(span.fid, cu), lineId(span.fid, cu + 1)],
    average_iteration_count: iterations,
    iterations_count: iterations,
    entries: 1,
    workload,
    per_iteration_workload: Math.max(1, Math.round(workload / iterations)),
    device_id: null,
    device_type: null,
  };
}

function loopPattern(kind, o) {
  const body = {
    pragma: '#pragma omp parallel for',
    first_private: o.firstPrivate ?? [],
    private: o.private ?? [],
    last_private: [],
    shared: o.shared ?? [],
    reduction: o.reduction ?? [],
  };
  return {
    ...common(o),
    ...body,
    ...(kind === 'do_all' ? { scheduling_clause: 'static' } : {}),
    collapse_level: 1,
    affected_line_ids: range(o.span.start + 1, o.span.end - 1).map((l) => lineId(o.span.fid, l)),
    affected_functions: [`${o.span.fid}:${o.span.functionLine}:${o.span.functionName}`],
  };
}

const stencil = loop(2, 'stencil_1d', 'for (i = 1;');
const damped = loop(2, 'stencil_damped', 'for (i = 1;');
const dotLoop = loop(3, 'dot', 'for (i = 0;');
const norm = loop(3, 'norm2', 'for (i = 0;');
const count = loop(4, 'histogram', 'for (i = 0; i < n;');
const normalize = loop(4, 'normalize_counts', 'for (int b = 0;');
const firstFull = loop(4, 'first_full_bin', 'for (b = 0;');
const matvecRows = loop(5, 'matvec', 'for (i = 0;');
const matvecCols = loop(5, 'matvec', 'for (j = 0;');
const smooth = loop(6, 'smooth_prefix', 'for (i = 1;');
const mainInit = loop(1, 'main', 'for (i = 0; i < N;');

// Each entry is a suggestion the explorer made for one loop; the comments say what gcc makes of
// the generated pragma, which is what the demo is for.
const reductions = [
  // Builds.
  loopPattern('reduction', {
    id: 1,
    cu: 4,
    span: dotLoop,
    iterations: 4096,
    workload: 16384,
    firstPrivate: ['n'],
    private: ['i'],
    shared: ['x', 'y'],
    reduction: ['+:sum'],
  }),
  // `sum` is both shared and the reduction variable: "appears more than once in data clauses".
  loopPattern('reduction', {
    id: 2,
    cu: 12,
    span: norm,
    iterations: 4096,
    workload: 16384,
    firstPrivate: ['n'],
    private: ['i'],
    shared: ['sum', 'x'],
    reduction: ['+:sum'],
  }),
];
const doAlls = [
  // Builds.
  loopPattern('do_all', {
    id: 0,
    cu: 5,
    span: stencil,
    iterations: 4094,
    workload: 28658,
    firstPrivate: ['n'],
    private: ['i'],
    shared: ['in', 'out'],
  }),
  // `acc` is declared inside the body, out of scope at the pragma: "'acc' undeclared".
  loopPattern('do_all', {
    id: 3,
    cu: 3,
    span: matvecRows,
    iterations: 64,
    workload: 20736,
    firstPrivate: ['cols', 'rows'],
    private: ['acc', 'i', 'j'],
    shared: ['a', 'x', 'y'],
  }),
  // The index is declared in the for-init: "'b' undeclared".
  loopPattern('do_all', {
    id: 4,
    cu: 18,
    span: normalize,
    iterations: 16,
    workload: 64,
    firstPrivate: ['bins', 'n'],
    private: ['b'],
    shared: ['counts', 'freq'],
  }),
  // A const local in private: "'const' qualified 'w' may appear only in 'shared' or 'firstprivate'".
  loopPattern('do_all', {
    id: 5,
    cu: 14,
    span: damped,
    iterations: 4094,
    workload: 36846,
    firstPrivate: ['n'],
    private: ['i', 'w'],
    shared: ['in', 'out'],
  }),
  // The body leaves early: "break statement used with OpenMP for loop". Only restructuring the
  // search would make it parallel; the loop is cold (hotspot NO), so the default -ht skips it.
  loopPattern('do_all', {
    id: 8,
    cu: 26,
    span: firstFull,
    iterations: 16,
    workload: 48,
    firstPrivate: ['bins', 'limit'],
    private: ['b'],
    shared: ['counts', 'found'],
  }),
];

function stage(fid, line, cu, vars) {
  return {
    node: lineId(fid, cu),
    startsAtLine: lineId(fid, line),
    endsAtLine: lineId(fid, line),
    first_private: vars.firstPrivate ?? [],
    private: [],
    shared: vars.shared ?? [],
    reduction: [],
    in_deps: vars.in ?? [],
    out_deps: vars.out ?? [],
    in_out_deps: vars.inOut ?? [],
  };
}

// The generator spells the dependence clause `depends(...)`: "expected '#pragma omp' clause before 'depends'".
const pipelines = [
  {
    ...common({ id: 6, cu: 3, span: smooth, iterations: 4095, workload: 32760 }),
    coefficient: 0.946,
    stages: [
      stage(6, smooth.start + 1, 4, { firstPrivate: ['i'], shared: ['a'], out: ['a'] }),
      stage(6, smooth.start + 2, 5, { firstPrivate: ['i'], shared: ['a', 'b'], in: ['a'], out: ['b'] }),
      stage(6, smooth.start + 3, 6, { firstPrivate: ['i'], shared: ['b', 'c'], in: ['b'], inOut: ['c'] }),
    ],
  },
];

// No code generation exists for this type: its folder stays empty ("no patch").
const matvecFunction = functionSpan(5, 'matvec');
const geometric = [
  {
    ...common({ id: 7, cu: 1, span: matvecFunction, iterations: -1, workload: 20800 }),
    do_all_children: [lineId(5, 3)],
    reduction_children: [],
    min_iter_number: 64,
    num_tasks: 4,
    pragma: 'for (i = 0; i < num-tasks; i++) #pragma omp task',
    first_private: ['i', 'cols', 'rows'],
    private: [],
    last_private: [],
    shared: ['a', 'x', 'y'],
    reduction: [],
  },
];

// The optimizer combined the stencil and the normalisation into one suggestion touching two files;
// the patch for stencil.c builds, the one for histogram.c does not. Like every optimizer output it
// is listed in optimizer/patterns.json, not in explorer/patterns.json; its line range lies on a YES
// loop, so a reader that classifies optimizer outputs too finds it hot.
const optimizerOutputs = [
  {
    ...common({ id: 9, cu: 5, span: stencil, iterations: 4094, workload: 28722 }),
    applied_patterns: [
      { pattern_id: 0, device_id: 0, device_type: 0 },
      { pattern_id: 4, device_id: 0, device_type: 0 },
    ],
    data_movement: [],
    decisions: [12, 31],
    host_device_id: 0,
  },
];
const NEXT_FREE_PATTERN_ID = 10;

// Measured regions: YES = hot on both measures, MAYBE = on one, NO = on neither.
const hotspotRegions = [
  {
    typ: 'FUNCTION',
    span: { fid: 1, start: linesOf(1).findIndex((l) => l.startsWith('int main(')) + 1 },
    name: 'main',
    hotness: 'YES',
    avr: 0.184213,
  },
  { typ: 'LOOP', span: mainInit, hotness: 'NO', avr: 0.004117 },
  { typ: 'LOOP', span: stencil, hotness: 'YES', avr: 0.031842 },
  { typ: 'LOOP', span: damped, hotness: 'YES', avr: 0.036511 },
  { typ: 'LOOP', span: dotLoop, hotness: 'YES', avr: 0.022907 },
  { typ: 'LOOP', span: norm, hotness: 'MAYBE', avr: 0.012406 },
  { typ: 'LOOP', span: count, hotness: 'YES', avr: 0.041238 },
  { typ: 'LOOP', span: normalize, hotness: 'MAYBE', avr: 0.010834 },
  { typ: 'LOOP', span: firstFull, hotness: 'NO', avr: 0.002215 },
  { typ: 'LOOP', span: matvecRows, hotness: 'YES', avr: 0.028861 },
  { typ: 'LOOP', span: matvecCols, hotness: 'YES', avr: 0.027402 },
  { typ: 'LOOP', span: smooth, hotness: 'MAYBE', avr: 0.015517 },
];

// Summed runtime of the whole program over the three measured runs; ratios are relative to it.
const PROGRAM_RUNTIME_SUM = 0.603518;

function hotspotsJson() {
  // Written like the Hotspot-Detection analyzer: each region dumped with indent 4, joined by ",\n".
  const regions = hotspotRegions.map((r, csid) => {
    const runtimes = [0.97, 1.02, 1.01].map((f) => round(r.avr * f));
    const sum = round(runtimes.reduce((a, b) => a + b, 0));
    const minVal = Math.min(...runtimes);
    const maxVal = Math.max(...runtimes);
    const region = {
      csid,
      typ: r.typ,
      fid: r.span.fid,
      lineNum: r.span.start,
      name: r.name ?? '',
      runtimes,
      level: r.typ === 'FUNCTION' ? 0 : 1,
      hot: true,
      hotness: r.hotness,
      avr: round(sum / runtimes.length),
      sum,
      minVal,
      maxVal,
      delta: round(maxVal - minVal),
      ratio: round(sum / PROGRAM_RUNTIME_SUM),
      ...(r.hotness !== 'NO' ? { topAvr: true } : {}),
      ...(r.hotness === 'YES' ? { topRatio: true } : {}),
    };
    return JSON.stringify(region, null, 4);
  });
  return `{"code_regions": [${regions.join(',\n')}]\n}\n`;
}

function round(x) {
  return Math.round(x * 1e6) / 1e6;
}

/** The pragma text exactly as the generator builds it: prefix, then each clause followed by one space. */
function loopPragma(p) {
  let text = `${p.pragma} `;
  if (p.first_private.length) text += `firstprivate(${p.first_private.join(',')}) `;
  if (p.private.length) text += `private(${p.private.join(',')}) `;
  if (p.last_private.length) text += `lastprivate(${p.last_private.join(',')}) `;
  if (p.shared.length) text += `shared(${p.shared.join(',')}) `;
  text += reductionClauses(p.reduction);
  return text;
}

function reductionClauses(entries) {
  const byOp = new Map();
  for (const entry of entries) {
    const [op, name] = entry.split(':');
    byOp.set(op, [...(byOp.get(op) ?? []), name]);
  }
  return [...byOp].map(([op, names]) => `reduction(${op}:${names.join(',')}) `).join('');
}

function stagePragma(s) {
  let text = '#pragma omp task ';
  if (s.first_private.length) text += `firstprivate(${s.first_private.join(',')}) `;
  if (s.private.length) text += `private(${s.private.join(',')}) `;
  if (s.shared.length) text += `shared(${s.shared.join(',')}) `;
  text += reductionClauses(s.reduction);
  if (s.in_deps.length) text += `depends(in:${s.in_deps.join(',')}) `;
  if (s.out_deps.length) text += `depends(out:${s.out_deps.join(',')}) `;
  if (s.in_out_deps.length) text += `depends(inout:${s.in_out_deps.join(',')}) `;
  return text;
}

const fileIdOf = (fidLine) => Number(fidLine.split(':')[0]);
const lineOf = (fidLine) => Number(fidLine.split(':')[1]);

/** The insertions one explorer pattern asks for: [{fid, line, text}]. */
function insertionsOf(pattern) {
  if (pattern.stages) {
    return pattern.stages.map((s) => ({
      fid: fileIdOf(s.startsAtLine),
      line: lineOf(s.startsAtLine),
      text: stagePragma(s),
    }));
  }
  return [{ fid: fileIdOf(pattern.start_line), line: lineOf(pattern.start_line), text: loopPragma(pattern) }];
}

function insert(fid, insertions) {
  const out = [];
  linesOf(fid).forEach((text, index) => {
    for (const ins of insertions.filter((i) => i.line === index + 1)) out.push(text.match(/^\s*/)[0] + ins.text);
    out.push(text);
  });
  return `${out.join('\n')}\n`;
}

function run(command, args, options) {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.error) throw result.error;
  return result;
}

function touch(file, seconds) {
  const done = run('touch', ['-d', `@${seconds.toFixed(9)}`, file]);
  if (done.status !== 0) throw new Error(`touch ${file}: ${done.stderr}`);
}

/** One suggestion's patch files, each a real `diff -Naru` against the generator's temp file. */
function writePatches(id, insertions, scratchRoot, clock) {
  const dir = path.join(DOT, 'patch_generator', String(id));
  mkdirSync(dir, { recursive: true });
  const fids = [...new Set(insertions.map((i) => i.fid))].sort((a, b) => a - b);
  for (const fid of fids) {
    const original = path.join(scratchRoot, FILES[fid - 1]);
    const temp = `${original}.discopop_patch_generator.temp`;
    writeFileSync(
      temp,
      insert(
        fid,
        insertions.filter((i) => i.fid === fid),
      ),
    );
    touch(temp, clock.next());
    const diff = run('diff', ['-Naru', original, temp], {
      cwd: path.join(scratchRoot, '.discopop'),
      env: { ...process.env, TZ: 'UTC', LC_ALL: 'C' },
    });
    rmSync(temp);
    if (diff.status !== 1) throw new Error(`diff for suggestion ${id}, file ${fid}: ${diff.stderr || 'no difference'}`);
    const [minus, plus, ...rest] = diff.stdout.split('\n');
    const relocate = (header) => header.replace(`${scratchRoot}/`, `${PROJECT_ROOT}/`);
    writeFileSync(path.join(dir, `${fid}.patch`), [relocate(minus), relocate(plus), ...rest].join('\n'));
  }
}

function writeJson(rel, value, indent) {
  const file = path.join(DOT, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, indent === undefined ? pythonCompact(value) : JSON.stringify(value, null, indent));
}

/** json.dump without indent: ", " and ": " separators. */
function pythonCompact(value) {
  if (Array.isArray(value)) return `[${value.map(pythonCompact).join(', ')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pythonCompact(v)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value);
}

function writeText(rel, text, mode) {
  const file = path.join(DOT, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  if (mode) chmodSync(file, mode);
}

function main() {
  rmSync(DOT, { recursive: true, force: true });
  const scratch = mkdtempSync(path.join(tmpdir(), 'make-demo-'));
  const scratchRoot = path.join(scratch, 'demo');
  try {
    cpSync(DEMO, scratchRoot, { recursive: true, filter: (file) => path.basename(file) !== '.discopop' });
    mkdirSync(path.join(scratchRoot, '.discopop'));
    for (const rel of FILES) touch(path.join(scratchRoot, rel), SOURCE_MTIME + FILES.indexOf(rel) * 61.25);

    writeText('FileMapping.txt', FILES.map((rel, i) => `${i + 1}\t${PROJECT_ROOT}/${rel}\n`).join(''));
    writeJson(
      'explorer/patterns.json',
      {
        version: VERSION,
        patterns: {
          optimizer_output: [],
          merged_pattern: [],
          reduction: reductions,
          do_all: doAlls,
          pipeline: pipelines,
          geometric_decomposition: geometric,
        },
      },
      2,
    );
    writeJson(
      'optimizer/patterns.json',
      { version: VERSION, patterns: { optimizer_output: optimizerOutputs, merged_pattern: [] } },
      2,
    );
    writeText('next_free_pattern_id.txt', String(NEXT_FREE_PATTERN_ID));
    writeJson(
      'line_mapping.json',
      Object.fromEntries(
        FILES.map((_, i) => [String(i + 1), Object.fromEntries(linesOf(i + 1).map((_, l) => [String(l + 1), l + 1]))]),
      ),
    );
    writeJson('patch_applicator/applied_suggestions.json', { applied: [] });
    writeText('hotspot_detection/Hotspots.json', hotspotsJson());
    writeConfig();

    let tick = 0;
    const clock = { next: () => GENERATOR_START + 0.1183 * tick++ };
    const explorerPatterns = [...reductions, ...doAlls, ...pipelines].sort((a, b) => a.pattern_id - b.pattern_id);
    const byId = new Map(explorerPatterns.map((p) => [p.pattern_id, p]));
    for (const pattern of explorerPatterns) writePatches(pattern.pattern_id, insertionsOf(pattern), scratchRoot, clock);
    for (const gd of geometric) {
      // git keeps no empty folder; instantiate-fixture.mjs removes this marker again.
      writeText(`patch_generator/${gd.pattern_id}/.gitkeep`, '');
    }
    for (const out of optimizerOutputs) {
      writePatches(
        out.pattern_id,
        out.applied_patterns.flatMap((a) => insertionsOf(byId.get(a.pattern_id))),
        scratchRoot,
        clock,
      );
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function writeConfig() {
  const cfg = 'project/configs/tiny';
  writeText(
    `${cfg}/seq_settings.json`,
    pythonCompact({ CC: 'gcc', CXX: 'g++', CFLAGS: '-O2 -Wall', CXXFLAGS: '-O2 -Wall' }),
  );
  writeText(
    `${cfg}/compile.sh`,
    '#!/bin/bash\n# Builds the demo with the compiler and flags of the settings file DiscoPoP selected.\ncd "$DP_PROJECT_ROOT_DIR" || exit 1\nmake CC="$CC" CFLAGS="$CFLAGS"\n',
    0o755,
  );
  writeText(`${cfg}/execute.sh`, '#!/bin/bash\ncd "$DP_PROJECT_ROOT_DIR" || exit 1\n./demo\n', 0o755);
}

main();
