// npm run bench -- repair [--copies 2] [--delay-ms 2000] [-j 2] [--resume-only]
// The repair stage with several suggestions in flight. A copy of the demo with its six broken
// suggestions duplicated `--copies` more times (18 failing by default), repaired through the CLI
// by the scripted agent (test/helpers/scripted-agent/agent.mjs: a real process per call through the
// descriptor interface) that answers each suggestion correctly after `--delay-ms`; real gcc
// verifies. Reports the repair stage's wall time (first repair-started to last suggestion-finished,
// from progress.jsonl) at --agent-jobs 1, 2, 4 and 8 with the ratio to 1 job, then the resume case:
// a run at 4 jobs killed after half the suggestions finished, then --resume: agent calls of both
// runs against the uninterrupted run plus the calls in flight at the kill, and the resumed run's
// wall time against a fresh run's.
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { runProcess } from '../../dist/process.js';
import { instantiateFixture } from '../instantiate-fixture.mjs';
import { scriptedDescriptor } from '../../test/helpers/scripted-agent/descriptor.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(repoRoot, 'dist', 'cli.js');
const FAILING = ['2', '3', '4', '5', '6', '9'];

function option(args, name, fallback) {
  const index = args.indexOf(name);
  return index >= 0 ? Number(args[index + 1]) : fallback;
}

async function cli(dotDir, args, env = {}) {
  const started = performance.now();
  const outcome = await runProcess({
    command: process.execPath,
    args: [CLI, '--dot-dp-path', dotDir, ...args],
    cwd: dotDir,
    env,
    timeoutMs: 3_600_000,
  });
  return { outcome, wallMs: performance.now() - started };
}

/** Correct answers, from the built-in repairer's verified patch sets; `<root>` for the project root. */
async function referenceAnswers() {
  const copy = instantiateFixture('demo');
  try {
    const { outcome } = await cli(copy.dotDir, ['--backend', 'builtin']);
    if (outcome.kind !== 'exited' || outcome.exitCode !== 0) throw new Error('the built-in reference run failed');
    return Object.fromEntries(
      FAILING.map((id) => {
        const dir = join(copy.dotDir, 'patch_generator', id);
        const diffs = readdirSync(dir).map((name) =>
          readFileSync(join(dir, name), 'utf8').replaceAll(copy.root, '<root>'),
        );
        return [id, `Here is the corrected patch set.\n\n${diffs.map((d) => `\`\`\`diff\n${d}\`\`\``).join('\n\n')}\n`];
      }),
    );
  } finally {
    rmSync(dirname(copy.root), { recursive: true, force: true });
  }
}

/** A demo copy whose broken suggestions are duplicated under new ids; returns it and every failing id with its original. */
function project(copies) {
  const copy = instantiateFixture('demo');
  const failing = FAILING.map((id) => [id, id]);
  for (let c = 1; c <= copies; c += 1) {
    for (const id of FAILING) {
      const clone = String(c * 100 + Number(id));
      cpSync(join(copy.dotDir, 'patch_generator', id), join(copy.dotDir, 'patch_generator', clone), {
        recursive: true,
      });
      failing.push([clone, id]);
    }
  }
  return { ...copy, failing };
}

function scriptedAgent(dir, replies, delayMs) {
  mkdirSync(dir, { recursive: true });
  const repliesFile = join(dir, 'replies.json');
  const stateFile = join(dir, 'state');
  writeFileSync(repliesFile, JSON.stringify(replies));
  const descriptor = scriptedDescriptor({ repliesFile, stateFile, delayMs });
  const descriptorFile = join(dir, 'scripted.json');
  writeFileSync(descriptorFile, JSON.stringify(descriptor));
  const calls = () => {
    try {
      return readFileSync(`${stateFile}.log`, 'utf8')
        .split('\n')
        .filter((l) => l !== '').length;
    } catch {
      return 0;
    }
  };
  return { descriptorFile, calls };
}

function events(dotDir) {
  return readFileSync(join(dotDir, 'patch_repair', 'progress.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

function repairStageMs(stream) {
  const started = stream.find((e) => e.type === 'repair-started');
  const finished = stream.filter((e) => e.type === 'suggestion-finished').at(-1);
  return Date.parse(finished.t) - Date.parse(started.t);
}

async function oneRun(o) {
  const p = project(o.copies);
  try {
    const replies = [
      {
        when: p.failing.map(([id, original]) => [
          `parallelizing suggestion ${id} (`,
          o.answers[original].replaceAll('<root>', p.root),
        ]),
      },
    ];
    const agent = scriptedAgent(join(dirname(p.root), 'agent'), replies, o.delayMs);
    const ids = p.failing.map(([id]) => id).join(',');
    const args = ['--backend', agent.descriptorFile, '--no-builtin', '-s', ids, '-j', String(o.jobs)];
    const run = await cli(
      p.dotDir,
      [...args, '--agent-jobs', String(o.agentJobs)],
      o.fault ? { PATCH_REPAIR_FAULT: o.fault } : {},
    );
    const result = { failing: p.failing.length, calls: agent.calls(), wallMs: run.wallMs, outcome: run.outcome };
    if (run.outcome.kind === 'exited') {
      const results = JSON.parse(readFileSync(join(p.dotDir, 'patch_repair', 'results.json'), 'utf8'));
      if (results.run.counts.repaired !== p.failing.length)
        throw new Error(`only ${results.run.counts.repaired} of ${p.failing.length} repaired`);
      result.repairMs = repairStageMs(events(p.dotDir));
      return result;
    }
    // Killed: the calls whose answers never arrived, then the resumed run.
    const stream = events(p.dotDir);
    const count = (type) => stream.filter((e) => e.type === type && e.tier === 'agent').length;
    result.inFlight = count('call-started') - count('call-finished');
    result.callsBeforeKill = agent.calls();
    const resumed = await cli(p.dotDir, [...args, '--agent-jobs', String(o.agentJobs), '--resume']);
    if (resumed.outcome.kind !== 'exited' || resumed.outcome.exitCode !== 0) throw new Error('the resumed run failed');
    const results = JSON.parse(readFileSync(join(p.dotDir, 'patch_repair', 'results.json'), 'utf8'));
    if (results.run.counts.repaired + results.run.counts.ok < p.failing.length)
      throw new Error('the resumed run did not finish every suggestion');
    return { ...result, calls: agent.calls(), resumedWallMs: resumed.wallMs };
  } finally {
    rmSync(dirname(p.root), { recursive: true, force: true });
  }
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

export default async function bench(args) {
  const copies = option(args, '--copies', 2);
  const delayMs = option(args, '--delay-ms', 2000);
  const jobs = option(args, '-j', 2);
  const answers = await referenceAnswers();
  const base = { copies, delayMs, jobs, answers };

  const times = [];
  let failing = 0;
  for (const agentJobs of args.includes('--resume-only') ? [4] : [1, 2, 4, 8]) {
    const r = await oneRun({ ...base, agentJobs });
    failing = r.failing;
    times.push({ agentJobs, ...r });
  }
  console.log(
    `repair stage, ${failing} failing suggestions, scripted agent answering correctly after ${delayMs} ms, -j ${jobs}`,
  );
  const serial = times[0].repairMs;
  for (const t of times) {
    console.log(
      `  --agent-jobs ${String(t.agentJobs).padEnd(2)} ${seconds(t.repairMs).padStart(8)}  ${(t.repairMs / serial).toFixed(2)}×  (${t.calls} calls)`,
    );
  }

  const fresh = times.find((t) => t.agentJobs === 4);
  const killed = await oneRun({ ...base, agentJobs: 4, fault: `pipeline.after-repair@${Math.floor(failing / 2)}` });
  console.log(
    `resume: killed (SIGKILL) after ${Math.floor(failing / 2)} of ${failing} suggestions finished at --agent-jobs 4, then --resume`,
  );
  console.log(
    `  agent calls, both runs: ${killed.calls} (uninterrupted: ${fresh.calls}, in flight at the kill: ${killed.inFlight}; target ≤ ${fresh.calls + killed.inFlight})`,
  );
  console.log(
    `  resumed run wall time ${seconds(killed.resumedWallMs)} vs a fresh run ${seconds(fresh.wallMs)}: ${(killed.resumedWallMs / fresh.wallMs).toFixed(2)}×`,
  );
}
