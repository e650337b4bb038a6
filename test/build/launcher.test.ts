// The slurm launcher against the local one, on a real single-node Slurm cluster
// (test/helpers/slurm-cluster.ts): the same outcome for the same command, queue time that is not
// build time, Slurm's own time limit reported as a timeout, an interrupted step ended with every
// process it started and its job gone from squeue, and cancelAll cancelling every job of the run
// (one submitted meanwhile too) and waiting while Slurm keeps one COMPLETING.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLauncher,
  jobName,
  slurmTimeLimit,
  splitLauncherArgs,
  type StepOutcome,
  type StepRequest,
} from '../../src/build/launcher.js';
import { runProcess } from '../../src/process.js';
import { processesIn } from '../helpers/cli.js';
import { slurmUnavailable, startSlurmCluster, type SlurmCluster } from '../helpers/slurm-cluster.js';

const skip = slurmUnavailable();
if (skip) console.warn(skip);

let cluster: SlurmCluster;
let dir: string;
const saved = process.env.SLURM_CONF;
beforeAll(async () => {
  if (skip) return;
  cluster = await startSlurmCluster();
  // The launcher runs srun, squeue and scancel with this process's environment, as the CLI does.
  process.env.SLURM_CONF = cluster.env.SLURM_CONF;
  dir = mkdtempSync(path.join(tmpdir(), 'pr-launcher-'));
}, 60_000);
afterAll(async () => {
  if (saved === undefined) delete process.env.SLURM_CONF;
  else process.env.SLURM_CONF = saved;
  if (dir) rmSync(dir, { recursive: true, force: true });
  await cluster?.stop();
}, 60_000);

function step(command: string, o: Partial<StepRequest> = {}): StepRequest {
  return {
    label: 'x',
    command: ['sh', '-c', command],
    cwd: dir,
    env: { PR_TEST_VALUE: 'from the caller' },
    timeoutMs: 60_000,
    signal: new AbortController().signal,
    ...o,
  };
}

/** The jobs squeue lists for one launcher's run: other cases' jobs may run beside them. */
async function jobsOf(runId: string): Promise<{ id: string; name: string; state: string }[]> {
  return (await cluster.jobs()).filter((job) => job.name.startsWith(jobName(runId, '')));
}

describe('launcher words', () => {
  it('names jobs after the run and what they build, and gives Slurm the timeout plus grace in whole minutes', () => {
    expect(jobName('20261201T121725-e3f677', '3')).toBe('patch-repair:20261201T121725-e3f677:3');
    expect(slurmTimeLimit(3_600_000)).toBe('61');
    expect(slurmTimeLimit(4_000)).toBe('2');
  });

  it('splits --launcher-args as a shell would, without expanding anything', () => {
    expect(splitLauncherArgs(`-p short  --comment="a b" --x='$HOME' c\\ d`)).toEqual([
      '-p',
      'short',
      '--comment=a b',
      '--x=$HOME',
      'c d',
    ]);
    expect(splitLauncherArgs('')).toEqual([]);
    expect(splitLauncherArgs("-p 'short")).toEqual({ problem: "an unclosed ' quote" });
  });
});

describe.skipIf(skip !== null)('slurm launcher on a real cluster', () => {
  // Slurm ends a job over its time limit a minute after its start at the earliest (limits are whole
  // minutes, checked every 30 s): that step starts before the other cases and the last one awaits it.
  let overLimit: Promise<StepOutcome>;
  beforeAll(() => {
    // --time from --launcher-args overrides the launcher's; patch-repair's own timer is far off.
    overLimit = createLauncher({ name: 'slurm', args: ['--time=1'], runId: 'r4' }).run(
      step('echo started; sleep 600', { timeoutMs: 600_000 }),
    );
  });

  it('gives the outcome the local launcher gives: output, exit code, environment and working directory', async () => {
    // Builds merge stderr into stdout (compile.ts), so the order of lines is kept.
    const command =
      'exec 2>&1; echo "$PR_TEST_VALUE"; pwd; echo "to stderr" >&2; printf "no newline at the end"; exit 3';
    const local = await createLauncher({ name: 'local', args: [], runId: 'r1' }).run(step(command));
    const slurm = await createLauncher({ name: 'slurm', args: [], runId: 'r1' }).run(step(command));
    expect(local).toMatchObject({ kind: 'exited', exitCode: 3 });
    expect(slurm).toMatchObject({ kind: 'exited', exitCode: 3 });
    const text = (o: typeof local) => (o.kind === 'exited' ? o.stdout + o.stderr : '');
    expect(text(slurm)).toBe(text(local));
    expect(text(slurm)).toBe(`from the caller\n${dir}\nto stderr\nno newline at the end`);
  }, 60_000);

  it('stops a step over the build timeout with its output so far, and leaves no job', async () => {
    // exec: no shell is left to say that its child was killed, after the output the test compares.
    const outcome = await createLauncher({ name: 'slurm', args: [], runId: 'r2' }).run(
      step('echo "partial output"; exec sleep 300', { timeoutMs: 2000 }),
    );
    expect(outcome).toMatchObject({ kind: 'timeout', stdout: 'partial output\n' });
    await expect.poll(() => jobsOf('r2'), { timeout: 15_000 }).toEqual([]);
  }, 60_000);

  it('does not count time waiting in the queue as build time', async () => {
    // A job holding 9 of the node's 16 CPUs for a few seconds: a step asking for 9 queues behind it
    // (and behind nothing else: the over-limit step holds one).
    const blocker = runProcess({
      command: 'srun',
      args: ['--quiet', '--cpus-per-task=9', '--job-name=blocker', 'sleep', '5'],
      cwd: dir,
      env: cluster.env,
    });
    await expect
      .poll(async () => (await cluster.jobs()).some((j) => j.name === 'blocker' && j.state === 'RUNNING'), {
        timeout: 30_000,
      })
      .toBe(true);
    const outcome = await createLauncher({ name: 'slurm', args: ['--cpus-per-task=9'], runId: 'r3' }).run(
      step('echo built', { timeoutMs: 2000 }),
    );
    await blocker;
    expect(outcome).toMatchObject({ kind: 'exited', exitCode: 0, stdout: 'built\n' });
    expect(outcome.durationMs).toBeGreaterThan(2000);
  }, 60_000);

  it("reports a step cancelled from outside as a launch failure, in Slurm's words", async () => {
    const launcher = createLauncher({ name: 'slurm', args: [], runId: 'r5' });
    const running = launcher.run(step('echo started; sleep 300', { label: '7' }));
    await expect
      .poll(async () => (await cluster.jobs()).some((j) => j.name === 'patch-repair:r5:7' && j.state === 'RUNNING'), {
        timeout: 30_000,
      })
      .toBe(true);
    await cluster.command('scancel', ['--name=patch-repair:r5:7']);
    // Cancelled while running, or between the allocation and the task launch: Slurm words both.
    expect(await running).toMatchObject({
      kind: 'launch-failed',
      reason: expect.stringMatching(/CANCELLED|Job credential revoked/),
    });
  }, 60_000);

  it('ends an interrupted step by cancelling its job: what the build detached ends with it, and the job leaves squeue', async () => {
    const work = mkdtempSync(path.join(dir, 'interrupted-'));
    const launcher = createLauncher({ name: 'slurm', args: [], runId: 'r6' });
    const interrupt = new AbortController();
    // A process the build detached (a compiler server, say) is no descendant of the step any more.
    const running = launcher.run(
      step('(sleep 300 &); echo > started; sleep 300', { cwd: work, signal: interrupt.signal }),
    );
    await expect.poll(() => existsSync(path.join(work, 'started')), { timeout: 30_000 }).toBe(true);
    interrupt.abort();
    expect(await running).toMatchObject({ kind: 'canceled' });
    const said: string[] = [];
    await launcher.cancelAll((line) => said.push(line));
    expect(await jobsOf('r6')).toEqual([]);
    expect(processesIn(work)).toEqual([]);
    // On a loaded machine Slurm may take longer than the notice's 5 s to let the job go: the user
    // is told so, and never that a job is still listed once the wait is over.
    for (const line of said)
      expect(line).toMatch(/^waiting for Slurm to end 1 cancelled job\(s\) of this run \(\d+ [A-Z]+\)$/);
  }, 120_000);

  it('cancels every job of the run, one submitted while it cancels too, and waits while Slurm keeps one COMPLETING', async () => {
    const launcher = createLauncher({ name: 'slurm', args: [], runId: 'r8' });
    const interrupt = new AbortController();
    const first = launcher.run(step('sleep 300', { label: 'held', signal: interrupt.signal }));
    await expect
      .poll(async () => (await jobsOf('r8')).some((j) => j.state === 'RUNNING'), { timeout: 30_000 })
      .toBe(true);
    const [held] = await jobsOf('r8');
    // A node slow to clean up (an epilog, say) keeps the cancelled job COMPLETING for 35 s.
    cluster.holdCompleting(held!.id, 35);
    interrupt.abort();
    expect(await first).toMatchObject({ kind: 'canceled' });
    const said: string[] = [];
    const cancelling = launcher.cancelAll((line) => said.push(line));
    const late = launcher.run(step('sleep 300', { label: 'late' }));
    await cancelling;
    expect(await jobsOf('r8')).toEqual([]);
    expect(await late).toMatchObject({ kind: 'launch-failed' });
    expect(said).toEqual([
      expect.stringMatching(
        new RegExp(`^waiting for Slurm to end \\d+ cancelled job\\(s\\) of this run \\(.*${held!.id} COMPLETING`),
      ),
    ]);
  }, 120_000);

  it('starts no job for a step whose run was interrupted before it', async () => {
    const interrupt = new AbortController();
    interrupt.abort();
    const before = await cluster.lastJobId();
    expect(
      await createLauncher({ name: 'slurm', args: [], runId: 'r7' }).run(
        step('echo built', { signal: interrupt.signal }),
      ),
    ).toMatchObject({ kind: 'canceled' });
    // The next job id is the one after the probe's: nothing was submitted in between.
    expect(await cluster.lastJobId()).toBe(before + 1);
  }, 60_000);

  it("reports Slurm's own time limit as a timeout (what ends a build when patch-repair is gone)", async () => {
    // What the shell says about its killed child comes after; the build's own output is kept.
    expect(await overLimit).toMatchObject({ kind: 'timeout', stdout: expect.stringMatching(/^started\n/) });
    await expect.poll(() => jobsOf('r4'), { timeout: 15_000 }).toEqual([]);
  }, 240_000);
});
