// npm run bench -- check-run [--repeats 3]
// The extra wall time of --check-run: the same repair run (--dry-run, so the copy stays as it
// is) with and without it, as a ratio, on the demo and on the CMake fixture with the built-in
// repairer. Also counts the candidates check 7 rejected per tier.
import { readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { runProcess } from '../../dist/process.js';
import { instantiateFixture } from '../instantiate-fixture.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli.js');

async function timedRun(dotDir, args) {
  const started = performance.now();
  const run = await runProcess({ command: process.execPath, args: [CLI, '--dot-dp-path', dotDir, '--dry-run', ...args], cwd: dotDir, timeoutMs: 1_800_000 });
  const seconds = (performance.now() - started) / 1000;
  if (run.kind !== 'exited' || run.exitCode > 1) throw new Error(`patch-repair ${args.join(' ')}: ${run.kind} ${run.exitCode ?? ''}\n${run.stderr ?? ''}`);
  const events = (await readFile(join(dotDir, 'patch_repair', 'progress.jsonl'), 'utf8')).split('\n').filter(Boolean).map((line) => JSON.parse(line));
  const rejected = { builtin: 0, agent: 0 };
  const tierOf = new Map(events.filter((e) => e.type === 'call-started').map((e) => [`${e.id}/${e.attempt}`, e.tier]));
  for (const e of events) if (e.type === 'check' && e.check === 'runs' && !e.passed) rejected[tierOf.get(`${e.id}/${e.attempt}`)] += 1;
  return { seconds, rejected };
}

async function copyFixture(name) {
  const copy = instantiateFixture(name);
  return { dir: dirname(copy.root), dotDir: copy.dotDir };
}

async function measure(label, prepare, args, repeats) {
  const without = [];
  const withCheck = [];
  const rejected = { builtin: 0, agent: 0 };
  for (let i = 0; i < repeats; i++) {
    for (const check of [false, true]) {
      const { dir, dotDir } = await prepare();
      try {
        const run = await timedRun(dotDir, [...args, ...(check ? ['--check-run', '--run-threads', '2'] : [])]);
        (check ? withCheck : without).push(run.seconds);
        if (check && i === 0) Object.assign(rejected, run.rejected);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const a = median(without);
  const b = median(withCheck);
  console.log(`${label.padEnd(34)} ${a.toFixed(1).padStart(7)} s  ${b.toFixed(1).padStart(7)} s  ${(b / a).toFixed(2).padStart(5)}×   built-in ${rejected.builtin}, agent ${rejected.agent}`);
}

export default async function bench(args) {
  const at = args.indexOf('--repeats');
  const repeats = at >= 0 ? Number(args[at + 1]) : 3;
  console.log(`check-run: median of ${repeats} runs each, --dry-run, -j default, --run-threads 2 --run-repeats 3`);
  console.log(`${'project'.padEnd(34)} ${'without'.padStart(9)}  ${'with'.padStart(9)}  ratio   rejected at check 7`);
  await measure('demo (built-in repairer)', () => copyFixture('demo'), ['--backend', 'builtin'], repeats);
  await measure('cmake fixture (built-in repairer)', () => copyFixture('cmake'), ['--backend', 'builtin'], repeats);
}
