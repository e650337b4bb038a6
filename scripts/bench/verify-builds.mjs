// npm run bench -- verify-builds [--tus 120] [--suggestions 162] [--repairs 13] [--fillers 10] [-j 2] [--rounds 2]
// The repair stage's build time (issue 47, item 3): check 6's builds of the verified repairs of the
// generated scale project's first `--repairs` broken suggestions (13 of its 16 at 120 units), built whole with compile.sh as
// before, and with only the changed unit compiled first (src/build/screening/changed-units.ts), in
// this process, in alternating rounds so that a load that changes while the bench runs weighs on
// both alike. The repair is what the built-in repairer answers: the body-local taken out of private().
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BuildPool } from '../../dist/build/pool.js';
import { changedUnitsFirst } from '../../dist/build/screening/changed-units.js';
import { generateProject } from '../scale-project.mjs';

function option(args, name, fallback) {
  const index = args.indexOf(name);
  return index >= 0 ? Number(args[index + 1]) : fallback;
}

async function openPool(dp, scratchDir, jobs) {
  const pool = await BuildPool.create({
    dp,
    scratchDir,
    jobs,
    threads: 1,
    timeoutMs: 600_000,
    signal: new AbortController().signal,
    emit: () => undefined,
  });
  const reference = await pool.referenceBuild();
  if (!reference.ok) throw new Error(`the reference build failed:\n${reference.output}`);
  return pool;
}

/** Every repair built once with `builder`; the wall time and the verdicts. */
async function buildAll(builder, repairs) {
  const started = performance.now();
  const builds = await Promise.all(repairs.map(({ id, patchSet }) => builder.build(id, patchSet, 'verify')));
  return { seconds: (performance.now() - started) / 1000, ok: builds.map((b) => b.ok) };
}

export default async function bench(args) {
  const tus = option(args, '--tus', 120);
  const suggestions = option(args, '--suggestions', 162);
  const fillers = option(args, '--fillers', 10);
  const jobs = option(args, '-j', 2);
  const rounds = option(args, '--rounds', 2);
  const count = option(args, '--repairs', 13);
  const base = await mkdtemp(join(tmpdir(), 'pr-bench-verify-'));
  try {
    const { dp, broken } = await generateProject(base, tus, suggestions, fillers);
    const repairs = dp.suggestions
      .filter((s) => broken.has(s.id))
      .slice(0, count)
      .map((s) => ({
        id: s.id,
        patchSet: new Map(s.files.map((f) => [f.fileId, f.text.replace('private(i,t)', 'private(i)')])),
      }));
    console.log(
      `Verification builds: ${repairs.length} verified repairs of the generated project (${tus} units, ${fillers} filler functions each), ${availableParallelism()} cores, -j ${jobs}, ${rounds} rounds each`,
    );
    const whole = await openPool(dp, join(base, 'scratch'), jobs);
    const unitsPool = await openPool(dp, join(base, 'scratch'), jobs);
    const units = changedUnitsFirst(dp, unitsPool);
    try {
      const times = { whole: 0, units: 0 };
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? ['whole', 'units'] : ['units', 'whole'];
        for (const which of order) {
          const run = await buildAll(which === 'whole' ? whole : units, repairs);
          if (!run.ok.every(Boolean)) throw new Error(`${which}: a verified repair did not build`);
          times[which] += run.seconds;
          console.log(
            `  round ${round + 1}, ${which === 'whole' ? 'compile.sh whole' : 'changed units first'}: ${run.seconds.toFixed(1)} s`,
          );
        }
      }
      console.log(
        `repair stage's builds: compile.sh whole ${times.whole.toFixed(1)} s, changed units first ${times.units.toFixed(1)} s: ${(times.units / times.whole).toFixed(2)} of the time (${JSON.stringify(units.counts)})`,
      );
    } finally {
      await Promise.all([whole.dispose(), unitsPool.dispose()]);
    }
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}
