// patch-repair --launcher slurm through the built CLI on a real single-node Slurm cluster
// (test/helpers/slurm-cluster.ts): the demo gives exactly the local launcher's results, its builds
// and its --check-run program runs each a job, an interrupt leaves no job behind, a rejected job is
// refused before any build, Slurm's own failures are retried and never recorded as failed builds,
// and an overrunning build is a timeout.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { runProcess } from '../../src/process.js';
import { lockPath } from '../../src/store/index.js';
import { type RunResults } from '../../src/formats/results.js';
import { resultsOf } from '../../src/formats/results-document.js';
import { processesIn } from '../helpers/cli.js';
import { useFixture } from '../helpers/fixture.js';
import { slurmUnavailable, startSlurmCluster, type SlurmCluster } from '../helpers/slurm-cluster.js';
import { changedPaths, snapshotTree } from '../helpers/tree-snapshot.js';
import { RACE_C, RACE_LOOP_LINE, writeRunProject } from '../helpers/run-project-files.mjs';

const CLI = path.resolve('dist/cli.js');
const skip = slurmUnavailable();
if (skip) console.warn(skip);

let cluster: SlurmCluster;
beforeAll(async () => {
  if (!skip) cluster = await startSlurmCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
}, 60_000);

async function cli(dotDir: string, args: string[], env: Record<string, string> = {}) {
  const outcome = await runProcess({
    command: process.execPath,
    args: [CLI, '--dot-dp-path', dotDir, ...args],
    cwd: dotDir,
    env: { ...cluster.env, ...env },
    timeoutMs: 240_000,
  });
  if (outcome.kind !== 'exited') throw new Error(`patch-repair ${args.join(' ')}: ${outcome.kind}`);
  return outcome;
}

/** A started CLI whose pid the test can signal. */
function startCli(dotDir: string, args: string[]) {
  const child = spawn(process.execPath, [CLI, '--dot-dp-path', dotDir, ...args], {
    cwd: dotDir,
    env: { ...process.env, ...cluster.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return { child, exit, stderr: () => stderr };
}

function results(dotDir: string): RunResults {
  return resultsOf(JSON.parse(readFileSync(path.join(dotDir, 'patch_repair', 'results.json'), 'utf8')));
}

function events(dotDir: string): Record<string, unknown>[] {
  return readFileSync(path.join(dotDir, 'patch_repair', 'progress.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function workDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pr-slurm-work-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Makes the fixture copy's compile.sh run `shell` first, in the build's copy of the project; returns the undo. */
function prependToCompile(dotDir: string, shell: string): () => void {
  const script = path.join(dotDir, 'project', 'configs', 'tiny', 'compile.sh');
  const text = readFileSync(script, 'utf8');
  writeFileSync(
    script,
    text.replace('cd "$DP_PROJECT_ROOT_DIR" || exit 1\n', `cd "$DP_PROJECT_ROOT_DIR" || exit 1\n${shell}\n`),
  );
  return () => writeFileSync(script, text);
}

async function ourJobs(): Promise<{ id: string; name: string; state: string }[]> {
  return (await cluster.jobs()).filter((job) => job.name.startsWith('patch-repair:'));
}

/** Waits until a job of this name suffix runs, and returns it. */
async function runningJob(suffix: string, run: { stderr(): string }): Promise<{ id: string; name: string }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const job = (await ourJobs()).find((j) => j.name.endsWith(suffix) && j.state === 'RUNNING');
    if (job) return job;
    if (Date.now() > deadline) {
      throw new Error(
        `no job ending in ${suffix} started running; squeue: ${JSON.stringify(await ourJobs())}; patch-repair said: ${run.stderr()}`,
      );
    }
    await sleep(100);
  }
}

const notPatchRepair = (rel: string) => rel.startsWith(path.join('.discopop', 'patch_repair'));

describe.skipIf(skip !== null)('--launcher slurm on a real cluster', () => {
  it('discovers, repairs and runs (--check-run) the demo with exactly the results of the local launcher, every build and run a job step', async () => {
    const local = useFixture('demo');
    const remote = useFixture('demo');
    const work = workDir();
    // Each run of execute.sh notes the Slurm job it ran in, and its thread count, outside the copy.
    const marks = path.join(workDir(), 'runs');
    const execute = path.join(remote.dotDir, 'project', 'configs', 'tiny', 'execute.sh');
    writeFileSync(
      execute,
      readFileSync(execute, 'utf8').replace(
        './demo',
        `echo "\${SLURM_JOB_ID:-none} \${SLURM_STEP_ID:-none} $OMP_NUM_THREADS" >> ${marks}\n./demo`,
      ),
    );
    const checkRun = ['--check-run', '--run-threads', '2', '--run-repeats', '3'];
    const localRun = await cli(local.dotDir, ['--backend', 'builtin', ...checkRun]);
    const firstJob = await cluster.lastJobId();
    const slurmRun = await cli(remote.dotDir, [
      '--backend',
      'builtin',
      '--launcher',
      'slurm',
      '--work-dir',
      work,
      ...checkRun,
    ]);
    const lastJob = await cluster.lastJobId();

    expect(slurmRun.exitCode, slurmRun.stderr).toBe(localRun.exitCode);
    // The same records, but for the wall time spent on each (duration_s).
    const timeless = (dotDir: string) => results(dotDir).suggestions.map(({ duration_s: _d, ...kept }) => kept);
    expect(timeless(remote.dotDir)).toEqual(timeless(local.dotDir));
    const repaired = results(remote.dotDir).suggestions.filter((s) => s.status === 'repaired');
    expect(repaired).toHaveLength(6);
    for (const record of repaired)
      expect(record.run_check).toEqual({
        threads: 2,
        repeats: 3,
        verdict: 'same',
        first_difference: null,
        validate: null,
      });
    expect(results(remote.dotDir).run.run_reference).toMatchObject({ noise_lines: 0 });
    // The written patch sets are the same bytes, up to where each copy of the project lives.
    const written = (copy: { root: string; dotDir: string }) =>
      Object.fromEntries(
        readdirSync(path.join(copy.dotDir, 'patch_generator'), { recursive: true, encoding: 'utf8' })
          .filter((rel) => rel.endsWith('.patch'))
          .map((rel) => [
            rel,
            readFileSync(path.join(copy.dotDir, 'patch_generator', rel), 'utf8')
              .replaceAll(copy.root, '<root>')
              .replace(/\t.*$/gm, ''),
          ]),
      );
    expect(written(remote)).toEqual(written(local));

    // Two reference runs at 1 thread, then per repair one at 1 and three at 2 threads: each its own
    // job, as every build is; with the preflight's, nothing built or run on this machine.
    const runs = readFileSync(marks, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' '));
    expect(runs.map(([, , threads]) => threads).sort()).toEqual([
      ...Array<string>(2 + 6).fill('1'),
      ...Array<string>(6 * 3).fill('2'),
    ]);
    const runJobs = runs.map(([job]) => Number(job));
    expect(runJobs.every((job) => job > firstJob && job <= lastJob)).toBe(true);
    expect(new Set(runJobs).size).toBe(runs.length);
    expect(runs.every(([, step]) => /^\d+$/.test(step!))).toBe(true);
    const builds = events(remote.dotDir).filter((e) => e.type === 'build-finished').length;
    expect(builds).toBeGreaterThan(8);
    expect(lastJob - firstJob - 1).toBe(builds + 1 + runs.length);
    expect(await ourJobs()).toEqual([]);
    expect(readdirSync(work)).toEqual([]);
  }, 300_000);

  it("runs the configuration's validate.sh after each execute.sh run, each a job step of its own", async () => {
    const { root, dot } = await writeRunProject({
      mainC: RACE_C,
      loopLine: RACE_LOOP_LINE,
      generated: '    #pragma omp parallel for shared(a,tmp_var7) private(t)',
    });
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const marks = path.join(workDir(), 'validations');
    const validate = path.join(dot, 'project', 'configs', 'tiny', 'validate.sh');
    writeFileSync(
      validate,
      `#!/bin/sh\necho "\${SLURM_JOB_ID:-none} \${SLURM_STEP_ID:-none} $OMP_NUM_THREADS" >> ${marks}\n"$DP_PROJECT_ROOT_DIR/demo" | grep -qx "sum 90000.000000"\n`,
    );
    const run = await cli(dot, [
      '--backend',
      'builtin',
      '--launcher',
      'slurm',
      '--work-dir',
      workDir(),
      '--check-run',
      '--run-threads',
      '2',
      '--run-repeats',
      '1',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(results(dot).suggestions[0]).toMatchObject({
      status: 'repaired',
      run_check: { verdict: 'same', validate: { runs: 2, passed: true, built_by: 'compile.sh' } },
    });
    // The reference's two runs at 1 thread, then the repair's run at 1 and its one at 2 threads.
    const validations = readFileSync(marks, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' '));
    expect(validations.map(([, , threads]) => threads)).toEqual(['1', '1', '1', '2']);
    expect(new Set(validations.map(([job]) => job)).size).toBe(4);
    expect(validations.every(([job, step]) => /^\d+$/.test(job!) && /^\d+$/.test(step!))).toBe(true);
    expect(await ourJobs()).toEqual([]);
  }, 120_000);

  it("refuses with exit 3 and Slurm's own words when the job is rejected, before any build", async () => {
    const { dotDir } = useFixture('demo');
    const work = workDir();
    const run = await cli(dotDir, [
      '--discover-only',
      '--launcher',
      'slurm',
      '--launcher-args',
      '-p nosuch',
      '--work-dir',
      work,
    ]);
    expect(run.exitCode).toBe(3);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^patch-repair: --launcher slurm: Slurm did not run the preflight job \(srun -p nosuch\): .*invalid partition.*nosuch/i,
    );
    expect(events(dotDir).some((e) => e.type === 'build-started')).toBe(false);
    expect(readdirSync(work)).toEqual([]);
  }, 120_000);

  it('refuses with exit 3 when srun is not there', async () => {
    const { dotDir } = useFixture('demo');
    const run = await cli(dotDir, ['--discover-only', '--launcher', 'slurm', '--work-dir', workDir()], {
      PATH: '/nonexistent',
    });
    expect(run.exitCode).toBe(3);
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        /^patch-repair: --launcher slurm: srun could not be started \(.*ENOENT.*\); run patch-repair where Slurm's commands work/,
      ),
    ]);
  }, 120_000);

  it('leaves no job in squeue after SIGINT mid-discovery, and the invariants hold', async () => {
    const { root, dotDir } = useFixture('demo');
    const undo = prependToCompile(dotDir, "grep -q 'pragma omp' src/*.c && sleep 120");
    const before = snapshotTree(root, notPatchRepair);
    const work = workDir();
    const run = startCli(dotDir, ['--discover-only', '--launcher', 'slurm', '--work-dir', work]);
    await runningJob(':3', run);
    expect((await ourJobs()).length).toBeGreaterThan(1);
    run.child.kill('SIGINT');
    expect(await run.exit, run.stderr()).toBe(130);

    expect(await ourJobs()).toEqual([]);
    expect(processesIn(work)).toEqual([]);
    expect(readdirSync(work)).toEqual([]);
    expect(changedPaths(before, snapshotTree(root, notPatchRepair))).toEqual([]);
    expect(existsSync(lockPath(dotDir))).toBe(false);
    const interrupted = results(dotDir);
    expect(interrupted.run.exit_code).toBe(130);
    expect(interrupted.suggestions.find((s) => s.id === '3')).toMatchObject({
      status: 'skipped',
      reason: 'interrupted',
    });

    // The next run goes through as if nothing had happened.
    undo();
    const next = await cli(dotDir, ['--discover-only', '--launcher', 'slurm', '--work-dir', work]);
    expect(next.exitCode, next.stderr).toBe(1);
    expect(results(dotDir).suggestions.map((s) => s.status)).toEqual([
      'ok',
      'ok',
      'failed',
      'failed',
      'failed',
      'failed',
      'failed',
      'skipped',
      'failed',
    ]);
    expect(await ourJobs()).toEqual([]);
  }, 180_000);

  it('cancels the jobs a killed run left, at the next start', async () => {
    const { dotDir } = useFixture('demo');
    const undo = prependToCompile(dotDir, "grep -q 'pragma omp' src/*.c && sleep 120");
    const work = workDir();
    const run = startCli(dotDir, ['--discover-only', '--launcher', 'slurm', '--work-dir', work]);
    const job = await runningJob(':3', run);
    const runId = job.name.split(':')[1];
    run.child.kill('SIGKILL');
    await run.exit;
    // srun survives its parent, and Slurm knows nothing of the kill: the jobs run on.
    expect((await ourJobs()).filter((j) => j.name.includes(`:${runId}:`)).length).toBeGreaterThan(0);

    undo();
    const next = await cli(dotDir, ['--discover-only', '-s', '0']);
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stdout + next.stderr).toMatch(new RegExp(`cancelled \\d+ Slurm job\\(s\\) left by run ${runId}`));
    expect((await ourJobs()).filter((j) => j.name.includes(`:${runId}:`))).toEqual([]);
    expect(readdirSync(work)).toEqual([]);
  }, 180_000);

  it('retries a job step cancelled from outside instead of recording a failed build', async () => {
    const { dotDir } = useFixture('demo');
    // Suggestion 3 patches matvec.c; its build is slow enough to be cancelled while it runs.
    prependToCompile(dotDir, "grep -q 'pragma omp' src/matvec.c && sleep 3");
    const run = startCli(dotDir, ['--discover-only', '--launcher', 'slurm', '--work-dir', workDir()]);
    const job = await runningJob(':3', run);
    await cluster.command('scancel', [job.id]);
    expect(await run.exit, run.stderr()).toBe(1);

    const record = results(dotDir).suggestions.find((s) => s.id === '3');
    expect(record).toMatchObject({
      status: 'failed',
      error_class: 'undeclared-in-clause',
      first_error: expect.stringMatching(/^src\/matvec\.c:\d+:\d+: error: .acc. undeclared/),
    });
    const all = events(dotDir);
    expect(all.filter((e) => e.type === 'build-finished' && e.id === '3')).toHaveLength(1);
    expect(
      all.find(
        (e) =>
          e.type === 'notice' && String(e.message).startsWith('the build of suggestion 3 could not run on the cluster'),
      ),
    ).toMatchObject({
      // Slurm's words depend on when the cancel lands: CANCELLED while running, a revoked credential while launching.
      message: expect.stringMatching(
        /(CANCELLED|credential revoked|launch failed).*trying again on a fresh job step \(1 of 2\)$/i,
      ),
    });
    expect(await ourJobs()).toEqual([]);
  }, 180_000);

  it('stops with exit 3 saying why when the cluster cannot run a build on three fresh steps', async () => {
    const { dotDir } = useFixture('demo');
    prependToCompile(dotDir, "grep -q 'pragma omp' src/matvec.c && sleep 60");
    const run = startCli(dotDir, ['--discover-only', '--launcher', 'slurm', '--work-dir', workDir()]);
    const cancelled = new Set<string>();
    while (cancelled.size < 3) {
      const job = await runningJob(':3', run);
      if (cancelled.has(job.id)) {
        await sleep(100);
        continue;
      }
      cancelled.add(job.id);
      await cluster.command('scancel', [job.id]);
    }
    expect(await run.exit).toBe(3);
    // Slurm's words depend on when the cancel lands: CANCELLED while running, a revoked credential while launching.
    expect(run.stderr()).toMatch(
      /^patch-repair: the build of suggestion 3 could not run on the cluster \(3 tries\): .*(CANCELLED|credential revoked|launch failed)/im,
    );
    const file = results(dotDir);
    expect(file.run.exit_code).toBe(3);
    expect(file.suggestions.find((s) => s.id === '3')).toMatchObject({
      status: 'skipped',
      reason: 'the cluster could not run its builds',
    });
    expect(file.suggestions.some((s) => s.status === 'failed' && s.first_error?.includes('CANCELLED'))).toBe(false);
    expect(await ourJobs()).toEqual([]);
  }, 240_000);

  it('reports a build over its time limit as a timeout and leaves nothing running', async () => {
    const { dotDir } = useFixture('demo');
    prependToCompile(
      dotDir,
      "grep -q 'pragma omp' src/matvec.c && { echo 'partial output before the hang'; sleep 600; }",
    );
    const work = workDir();
    const run = await cli(dotDir, [
      '--discover-only',
      '--launcher',
      'slurm',
      '--build-timeout',
      '10',
      '--work-dir',
      work,
    ]);
    expect(run.exitCode, run.stderr).toBe(1);
    const file = results(dotDir);
    expect(file.run.options).toMatchObject({ buildTimeoutS: 10, launcher: 'slurm' });
    expect(file.suggestions.find((s) => s.id === '3')).toMatchObject({
      status: 'failed',
      first_error: 'compile.sh did not finish within 10 s and was stopped',
    });
    expect(file.suggestions.find((s) => s.id === '2')).toMatchObject({
      status: 'failed',
      error_class: 'duplicate-data-sharing',
    });
    expect(await ourJobs()).toEqual([]);
    expect(processesIn(work)).toEqual([]);
  }, 180_000);
});
