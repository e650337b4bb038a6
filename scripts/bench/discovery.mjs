// npm run bench -- discovery [--tus 40] [--suggestions 100] [--jobs N] [--data-mb 500] [--fillers 10] [--only plain,pathdep,data,scale] [--sizes 40,120] [--loop off]
// Discovery (reference build + every suggestion built alone) with BuildPool against what
// DiscoPoP's autotuner does for a compile check: reference build, then per suggestion a full copy
// of the built project, `patch`, compile.sh, delete the copy, one after the other. Runs on the
// plain project, then the same project with a compile.sh whose outputs record the folder they were
// built in (as CMake's do: every workspace then runs its own reference build; compared with
// BuildPool on the plain project), then with data files inside the project tree.
//
// npm run bench -- discovery -- --launcher slurm [--launcher-args "-p short"] [--work-dir DIR] [same sizes]
// Discovery with the local launcher, then with every build a Slurm job step (the cluster srun
// reaches, e.g. through SLURM_CONF), on the same project and job count: the overhead per build.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BuildPool, createLauncher, discover, generatedPatchSet } from '../../dist/build/index.js';
import { runRecordedCompiles, screenPlan } from '../../dist/build/screening/screen.js';
import { splitLauncherArgs } from '../../dist/build/launcher.js';
import { filesHoldingPath } from '../../dist/build/location.js';
import { runProcess } from '../../dist/process.js';
import { generateProject } from '../scale-project.mjs';

function option(args, name, fallback) {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : fallback;
}

async function addDataFiles(root, megabytes) {
  const dir = join(root, 'data');
  await mkdir(dir, { recursive: true });
  const chunk = 50;
  for (let written = 0, n = 0; written < megabytes; written += chunk, n++) {
    const size = Math.min(chunk, megabytes - written) * 1024 * 1024;
    await writeFile(join(dir, `input_${n}.bin`), randomBytes(size));
  }
}

async function runOurs(dp, base, jobs, launcher) {
  const started = performance.now();
  const controller = new AbortController();
  const durations = [];
  const phases = { referenceEnd: 0, firstBuildStart: 0, lastBuildEnd: 0, startedDuringReference: 0 };
  const emit = (event) => {
    const at = (performance.now() - started) / 1000;
    if (event.type === 'build-finished' && event.purpose === 'reference' && phases.referenceEnd === 0)
      phases.referenceEnd = at;
    if (event.type === 'build-started' && event.purpose === 'discovery') {
      phases.firstBuildStart ||= at;
      if (phases.referenceEnd === 0) phases.startedDuringReference++;
    }
    if (event.type === 'build-finished' && event.purpose === 'discovery') {
      durations.push(event.duration_ms);
      phases.lastBuildEnd = at;
    }
  };
  const pool = await BuildPool.create({
    dp,
    scratchDir: join(base, 'scratch'),
    jobs,
    threads: 1,
    timeoutMs: 600_000,
    signal: controller.signal,
    emit,
    launcher,
  });
  try {
    const result = await discover({ dp, considered: dp.suggestions, pool, emit });
    const failing = [...result.builds].filter(([, r]) => !r.ok).map(([id]) => id);
    const seconds = (performance.now() - started) / 1000;
    const recorded = await pool.recordedCompiles();
    return { seconds, failing, durations, placement: pool.workspacePlacement, phases, recorded };
  } finally {
    await pool.dispose();
  }
}

/** Local launcher, then Slurm, same project, same -j: what a build costs more as a job step. */
async function compareLaunchers(dp, base, jobs, o) {
  const local = await runOurs(dp, base, jobs, createLauncher({ name: 'local', args: [], runId: 'bench' }));
  const slurm = createLauncher({ name: 'slurm', args: o.launcherArgs, runId: `bench-${process.pid}` });
  const scratch = await mkdtemp(join(o.workDir, 'pr-bench-slurm-'));
  try {
    const preflightStarted = performance.now();
    await slurm.preflight({ scratchDir: scratch, workDir: o.workDir, signal: new AbortController().signal });
    const preflight = (performance.now() - preflightStarted) / 1000;
    const remote = await runOurs(dp, scratch, jobs, slurm);
    const builds = local.durations.length;
    const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length / 1000;
    console.log(
      `\nlocal launcher against --launcher slurm${o.launcherArgs.length > 0 ? ` --launcher-args "${o.launcherArgs.join(' ')}"` : ''}, ${builds} discovery builds, -j ${jobs}`,
    );
    console.log(`  preflight job: ${preflight.toFixed(2)} s (once per run)`);
    console.log(
      `  discovery: local ${local.seconds.toFixed(1)} s, slurm ${remote.seconds.toFixed(1)} s: ${(remote.seconds / local.seconds).toFixed(2)}x`,
    );
    console.log(
      `  wall-clock overhead per build: ${(((remote.seconds - local.seconds) / builds) * 1000).toFixed(0)} ms`,
    );
    console.log(
      `  mean build (patch + compile.sh): local ${mean(local.durations).toFixed(3)} s, slurm ${mean(remote.durations).toFixed(3)} s: +${((mean(remote.durations) - mean(local.durations)) * 1000).toFixed(0)} ms a build`,
    );
    console.log(`  failing ids identical: ${sameIds(local.failing, remote.failing) ? 'yes' : 'NO'}`);
  } finally {
    await slurm.cancelAll();
    await rm(scratch, { recursive: true, force: true });
  }
}

function must(outcome, what) {
  if (outcome.kind !== 'exited' || outcome.exitCode !== 0)
    throw new Error(`${what}: ${outcome.kind} ${outcome.stderr ?? outcome.message ?? ''}`);
  return outcome;
}

async function compileIn(dp, copyRoot) {
  const configDir = join(copyRoot, relative(dp.projectRoot, dp.config.dir));
  return runProcess({
    command: join(configDir, 'compile.sh'),
    cwd: configDir,
    env: {
      ...dp.config.settings,
      DP_PROJECT_ROOT_DIR: copyRoot,
      DOT_DISCOPOP: join(copyRoot, '.discopop'),
      OMP_NUM_THREADS: '1',
    },
  });
}

/** The autotuner's way: one full copy of the built project per suggestion, one at a time. */
async function runBaseline(dp, base) {
  const started = performance.now();
  const work = join(base, 'baseline');
  await mkdir(work, { recursive: true });
  const reference = join(work, 'reference');
  must(await runProcess({ command: 'cp', args: ['-a', dp.projectRoot, reference], cwd: work }), 'copy');
  const refStarted = performance.now();
  must(await compileIn(dp, reference), 'reference build');
  const referenceSeconds = (performance.now() - refStarted) / 1000;
  const pathCheck = await timePathCheck(reference);
  const failing = [];
  let rebuildSeconds = 0;
  for (const s of dp.suggestions) {
    const copy = join(work, `s${s.id}`);
    must(await runProcess({ command: 'cp', args: ['-a', reference, copy], cwd: work }), 'copy');
    let ok = true;
    for (const f of s.files) {
      const target = join(copy, f.source.relPath);
      const patch = await runProcess({ command: 'patch', args: [target, f.patchPath], cwd: join(copy, '.discopop') });
      ok &&= patch.kind === 'exited' && patch.exitCode === 0;
    }
    if (ok) {
      const build = await compileIn(dp, copy);
      rebuildSeconds += build.durationMs / 1000;
      ok = build.kind === 'exited' && build.exitCode === 0;
    }
    if (!ok) failing.push(s.id);
    await rm(copy, { recursive: true, force: true });
  }
  await rm(work, { recursive: true, force: true });
  return { seconds: (performance.now() - started) / 1000, failing, referenceSeconds, rebuildSeconds, pathCheck };
}

/**
 * What the pool's check for a recorded folder path costs, measured on every file of a built tree:
 * more than the pool reads, which is only what the reference build wrote.
 */
async function timePathCheck(root) {
  const files = [];
  const walk = async (dir, rel) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(join(dir, entry.name), path);
      else if (entry.isFile()) files.push(path);
    }
  };
  await walk(root, '');
  const started = performance.now();
  const holding = await filesHoldingPath(root, files, [root]);
  return { files: files.length, holding: holding.length, ms: performance.now() - started };
}

/**
 * The two costs discovery cannot avoid, measured on the same project: T, a plain compile.sh in a
 * fresh copy (the reference build), and S, each considered suggestion's changed-unit compile
 * commands (those discovery recorded) run once in a built copy, its patch set applied and taken
 * back afterwards. The sequential limit is T + S/j; with screens overlapping the serial reference
 * build it is max(T, (T + S)/j).
 */
async function measureLimits(dp, base, recorded, jobs) {
  const copy = join(base, 'limit-copy');
  must(await runProcess({ command: 'cp', args: ['-a', dp.projectRoot, copy], cwd: base }), 'copy');
  try {
    const reference = must(await compileIn(dp, copy), 'reference build');
    const T = reference.durationMs / 1000;
    const launcher = createLauncher({ name: 'local', args: [], runId: 'bench' });
    const signal = new AbortController().signal;
    let S = 0;
    let units = 0;
    let unscreened = 0;
    for (const s of dp.suggestions) {
      const plan = screenPlan(dp, recorded, generatedPatchSet(s));
      if (!plan.ok) {
        unscreened++;
        continue;
      }
      const originals = await Promise.all(
        s.files.map(async (f) => [join(copy, f.source.relPath), await readFile(join(copy, f.source.relPath))]),
      );
      for (const f of s.files)
        await runProcess({ command: 'patch', args: [join(copy, f.source.relPath), f.patchPath], cwd: copy });
      const started = performance.now();
      await runRecordedCompiles({
        dp,
        launcher,
        label: s.id,
        workspaceRoot: copy,
        threads: 1,
        timeoutMs: 600_000,
        signal,
        commands: plan.commands,
      });
      S += (performance.now() - started) / 1000;
      units += plan.commands.length;
      for (const [path, bytes] of originals) await writeFile(path, bytes);
    }
    return {
      T,
      S,
      units,
      unscreened,
      sequential: T + S / jobs,
      overlapped: Math.max(T, (T + S) / jobs),
    };
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

function sameIds(a, b) {
  return JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
}

async function compare(label, dp, base, jobs, broken) {
  const ours = await runOurs(dp, base, jobs);
  const baseline = await runBaseline(dp, base);
  const limit = baseline.referenceSeconds + baseline.rebuildSeconds / jobs;
  const ratio = baseline.seconds / ours.seconds;
  console.log(`\n${label}`);
  console.log(`  baseline (copy per suggestion, sequential): ${baseline.seconds.toFixed(1)} s`);
  console.log(`  BuildPool (-j ${jobs}):                         ${ours.seconds.toFixed(1)} s`);
  console.log(`  speed-up: ${ratio.toFixed(2)}x`);
  console.log(
    `  limit: reference ${baseline.referenceSeconds.toFixed(1)} s + rebuilds ${baseline.rebuildSeconds.toFixed(1)} s / ${jobs} = ${limit.toFixed(1)} s; BuildPool is ${((ours.seconds / limit - 1) * 100).toFixed(0)}% above it`,
  );
  const identical = sameIds(ours.failing, baseline.failing);
  console.log(
    `  failing ids: ${ours.failing.length} (BuildPool) vs ${baseline.failing.length} (baseline), identical: ${identical ? 'yes' : 'NO'}; as generated: ${sameIds(ours.failing, broken) ? 'yes' : 'NO'}`,
  );
  console.log(`  workspaces: ${describePlacement(ours.placement)}`);
  const check = baseline.pathCheck;
  console.log(
    `  path check over all ${check.files} files of the built tree (the pool reads only the reference outputs): ${check.ms.toFixed(0)} ms, ${check.holding} holding the path`,
  );
  return { label, ours: ours.seconds, baseline: baseline.seconds, ratio, limit, identical };
}

function describePlacement(p) {
  return `${p.workspaces}, outputs ${p.outputs}, ${p.referenceBuilds} reference build(s)${p.pathFiles.length > 0 ? `, path found in ${p.pathFiles.join(', ')}` : ''}`;
}

/**
 * BuildPool on outputs that record their folder, against BuildPool on the plain project run right
 * before it (back to back, so both see the same machine load).
 */
async function comparePathDependent(dp, pathDependent, base, jobs, broken) {
  const plain = await runOurs(dp, base, jobs);
  const ours = await runOurs(pathDependent, base, jobs);
  const extra = (ours.seconds / plain.seconds - 1) * 100;
  console.log(
    '\npath-dependent project (compile.sh records its folder, as CMake does), against the plain project run just before',
  );
  console.log(
    `  BuildPool (-j ${jobs}), plain:          ${plain.seconds.toFixed(1)} s; workspaces: ${describePlacement(plain.placement)}`,
  );
  console.log(
    `  BuildPool (-j ${jobs}), path-dependent: ${ours.seconds.toFixed(1)} s; workspaces: ${describePlacement(ours.placement)}`,
  );
  console.log(`  cost of the path-dependent case: ${extra >= 0 ? '+' : ''}${extra.toFixed(0)}%`);
  console.log(
    `  failing ids identical: ${sameIds(ours.failing, plain.failing) ? 'yes' : 'NO'}; as generated: ${sameIds(ours.failing, broken) ? 'yes' : 'NO'}`,
  );
}

/** Considered suggestions per size of the issue's scale project (issue 38); other sizes get as many per unit. */
const SCALE_SUGGESTIONS = { 40: 43, 120: 162 };

/**
 * The scale curve: discovery (screens and grouped confirmations) against its two limits and the
 * autotuner's loop on the generated project at each size, all in this process, one after the other.
 */
async function scaleCurve(sizes, jobs, fillers, loop) {
  const rows = [];
  for (const tus of sizes) {
    const base = await mkdtemp(join(tmpdir(), 'pr-bench-scale-'));
    try {
      const suggestions = SCALE_SUGGESTIONS[tus] ?? Math.ceil(tus * 1.35);
      const { dp, broken } = await generateProject(base, tus, suggestions, fillers);
      const ours = await runOurs(dp, base, jobs);
      const limits = await measureLimits(dp, base, ours.recorded, jobs);
      const baseline = loop ? await runBaseline(dp, base) : null;
      const identical = sameIds(ours.failing, broken) && (!baseline || sameIds(ours.failing, baseline.failing));
      rows.push({ tus, suggestions, broken: broken.size, ours, limits, baseline, identical });
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  }
  const s = (seconds) => `${seconds.toFixed(1)} s`;
  console.log(
    `\nscale curve (${fillers} filler functions a unit, -j ${jobs}): discovery against its limits, T (a plain compile.sh in a fresh copy) and S (each considered suggestion's changed-unit compiles run once), and against the autotuner's loop (copy, patch, compile.sh per suggestion, one after the other)`,
  );
  console.log(
    '  units  considered/broken  discovery        T        S  T + S/j  max(T, (T+S)/j)  vs overlapped  autotuner loop  ratio  failing ids identical',
  );
  for (const r of rows) {
    const { ours, limits, baseline } = r;
    console.log(
      [
        String(r.tus).padStart(7),
        `${r.suggestions} / ${r.broken}`.padStart(17),
        s(ours.seconds).padStart(9),
        s(limits.T).padStart(8),
        s(limits.S).padStart(8),
        s(limits.sequential).padStart(8),
        s(limits.overlapped).padStart(16),
        `${(ours.seconds / limits.overlapped).toFixed(2)}x`.padStart(14),
        (baseline ? s(baseline.seconds) : 'not run').padStart(15),
        (baseline ? `${(baseline.seconds / ours.seconds).toFixed(1)}x` : '-').padStart(6),
        r.identical ? 'yes' : 'NO',
      ].join(' '),
    );
  }
  console.log('  phases of discovery (seconds from its start):');
  for (const r of rows) {
    const p = r.ours.phases;
    const unscreened = r.limits.unscreened > 0 ? `; ${r.limits.unscreened} suggestion(s) not screenable, not in S` : '';
    console.log(
      `  ${String(r.tus).padStart(5)} units: reference build ends ${p.referenceEnd.toFixed(1)}, first suggestion build starts ${p.firstBuildStart.toFixed(1)} (${p.startedDuringReference} started before the reference ended), last verdict ${p.lastBuildEnd.toFixed(1)}, end ${r.ours.seconds.toFixed(1)}; S covers ${r.limits.units} unit compiles${unscreened}`,
    );
  }
}

export default async function bench(args) {
  const tus = Number(option(args, '--tus', 40));
  const suggestions = Number(option(args, '--suggestions', 100));
  const jobs = Number(option(args, '--jobs', availableParallelism()));
  const dataMb = Number(option(args, '--data-mb', 500));
  const only = option(args, '--only', 'plain,pathdep,data,scale').split(',');
  const sizes = option(args, '--sizes', '40,120').split(',').map(Number);
  // Filler functions per unit: how much a compile costs relative to copying the tree.
  const fillers = Number(option(args, '--fillers', 10));
  const launcher = option(args, '--launcher', 'local');
  // The autotuner's loop takes minutes at 120 units; `--loop off` measures discovery and its limits alone.
  const loop = option(args, '--loop', 'on') !== 'off';
  if (launcher !== 'slurm' && only.every((name) => name === 'scale')) return scaleCurve(sizes, jobs, fillers, loop);
  const base = await mkdtemp(join(tmpdir(), 'pr-bench-discovery-'));
  try {
    const { dp, pathDependent, broken } = await generateProject(base, tus, suggestions, fillers);
    if (launcher === 'slurm') {
      const launcherArgs = splitLauncherArgs(option(args, '--launcher-args', ''));
      if (!Array.isArray(launcherArgs)) throw new Error(`--launcher-args: ${launcherArgs.problem}`);
      console.log(
        `Discovery benchmark, launchers: ${tus} translation units (${fillers} filler functions each), ${suggestions} suggestions, ${availableParallelism()} cores here`,
      );
      await compareLaunchers(dp, base, jobs, { launcherArgs, workDir: option(args, '--work-dir', tmpdir()) });
      return;
    }
    console.log(
      `Discovery benchmark: ${tus} translation units (${fillers} filler functions each), ${suggestions} suggestions (${broken.size} broken), ${availableParallelism()} cores, -j ${jobs}`,
    );
    if (only.includes('plain')) await compare('plain project', dp, base, jobs, broken);
    if (only.includes('pathdep')) await comparePathDependent(dp, pathDependent, base, jobs, broken);
    if (only.includes('data')) {
      await addDataFiles(dp.projectRoot, dataMb);
      await compare(`with ${dataMb} MB of data files in the project tree`, dp, base, jobs, broken);
    }
    if (only.includes('scale')) await scaleCurve(sizes, jobs, fillers, loop);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}
