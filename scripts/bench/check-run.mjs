// npm run bench -- check-run [--repeats 3] [--only <word of a row's label>]
// The extra wall time of --check-run: the same repair run (--dry-run, so the copy stays as it
// is) with and without it, as a ratio, on the demo and on the CMake fixture with the built-in
// repairer, and on a small program whose built-in repair runs differently, with the scripted
// agent answering first with a racy repair, then with the right one. Also counts the candidates
// check 7 rejected per tier.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { runProcess } from '../../dist/process.js';
import { instantiateFixture } from '../instantiate-fixture.mjs';
import { scriptedDescriptor } from '../../test/helpers/scripted-agent/descriptor.mjs';
import {
  answerText,
  LAST_C,
  LAST_RIGHT,
  LAST_TWICE,
  RACE_LOOP_LINE,
  RACY,
  writeRunProject,
} from '../../test/helpers/run-project-files.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli.js');

async function timedRun(dotDir, args) {
  const started = performance.now();
  const run = await runProcess({
    command: process.execPath,
    args: [CLI, '--dot-dp-path', dotDir, '--dry-run', ...args],
    cwd: dotDir,
    timeoutMs: 1_800_000,
  });
  const seconds = (performance.now() - started) / 1000;
  if (run.kind !== 'exited' || run.exitCode > 1)
    throw new Error(`patch-repair ${args.join(' ')}: ${run.kind} ${run.exitCode ?? ''}\n${run.stderr ?? ''}`);
  const events = (await readFile(join(dotDir, 'patch_repair', 'progress.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const rejected = { builtin: 0, agent: 0 };
  const tierOf = new Map(events.filter((e) => e.type === 'call-started').map((e) => [`${e.id}/${e.attempt}`, e.tier]));
  for (const e of events)
    if (e.type === 'check' && e.check === 'runs' && !e.passed) rejected[tierOf.get(`${e.id}/${e.attempt}`)] += 1;
  return { seconds, rejected };
}

async function copyFixture(name) {
  const copy = instantiateFixture(name);
  return { dir: dirname(copy.root), dotDir: copy.dotDir, args: ['--backend', 'builtin'] };
}

/** The check-run tests' program: the built-in repair keeps a reduction that changes the printed `t`. */
async function scriptedAgentProject() {
  const { root, dot } = await writeRunProject({ mainC: LAST_C, loopLine: RACE_LOOP_LINE, generated: LAST_TWICE });
  const agentDir = join(root, 'agent');
  await mkdir(agentDir);
  const repliesFile = join(agentDir, 'replies.json');
  await writeFile(
    repliesFile,
    JSON.stringify([RACY, LAST_RIGHT].map((directive) => answerText(root, LAST_C, RACE_LOOP_LINE, directive))),
  );
  const descriptorFile = join(agentDir, 'scripted.json');
  await writeFile(
    descriptorFile,
    JSON.stringify(scriptedDescriptor({ repliesFile, stateFile: join(agentDir, 'state') })),
  );
  return { dir: root, dotDir: dot, args: ['--backend', descriptorFile] };
}

async function measure(label, prepare, repeats) {
  const without = [];
  const withCheck = [];
  const rejected = { builtin: 0, agent: 0 };
  for (let i = 0; i < repeats; i++) {
    for (const check of [false, true]) {
      const { dir, dotDir, args } = await prepare();
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
  console.log(
    `${label.padEnd(36)} ${a.toFixed(1).padStart(7)} s  ${b.toFixed(1).padStart(7)} s  ${(b / a).toFixed(2).padStart(5)}×   built-in ${rejected.builtin}, agent ${rejected.agent}`,
  );
}

export default async function bench(args) {
  const at = args.indexOf('--repeats');
  const repeats = at >= 0 ? Number(args[at + 1]) : 3;
  console.log(`check-run: median of ${repeats} runs each, --dry-run, -j default, --run-threads 2 --run-repeats 3`);
  console.log(`${'project'.padEnd(36)} ${'without'.padStart(9)}  ${'with'.padStart(9)}  ratio   rejected at check 7`);
  const rows = [
    ['demo (built-in repairer)', () => copyFixture('demo')],
    ['cmake fixture (built-in repairer)', () => copyFixture('cmake')],
    ['lastprivate program (scripted agent)', scriptedAgentProject],
  ];
  // --only <word>: the rows whose label contains it, to measure one again.
  const only = args.indexOf('--only');
  for (const [label, prepare] of rows)
    if (only < 0 || label.includes(args[only + 1])) await measure(label, prepare, repeats);
}
