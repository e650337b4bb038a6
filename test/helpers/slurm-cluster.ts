// A real single-node Slurm cluster for one test file, from Debian's slurm-wlm and munge: munged
// with its own key and socket, slurmctld and slurmd with their state, spool, logs and ports in a
// temporary folder, NodeName=localhost. Started once in beforeAll, stopped by pid in afterAll. The
// commands patch-repair runs find it through SLURM_CONF (in `env`). Its epilog lets a test keep a
// cancelled job COMPLETING, as a slow node does. Needs root: slurmd starts job
// steps as the submitting user, and munged and slurmd refuse to run otherwise.
// PATCH_REPAIR_KEEP_SLURM=1 keeps the folder (slurm.conf, the daemons' logs) after the tests.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runProcess, type RunOutcome } from '../../src/process.js';

const DAEMONS = [
  '/usr/sbin/munged',
  '/usr/sbin/mungekey',
  '/usr/sbin/slurmctld',
  '/usr/sbin/slurmd',
  '/usr/bin/srun',
  '/usr/bin/squeue',
  '/usr/bin/scancel',
];

/** Why the Slurm tests cannot run here, or null when they can. */
export function slurmUnavailable(): string | null {
  const missing = DAEMONS.filter((file) => !existsSync(file));
  if (process.getuid?.() !== 0) {
    return 'Slurm tests skipped: they start a single-node cluster, which needs root (run them as root, e.g. in CI through .ci/run)';
  }
  if (missing.length > 0) {
    return `Slurm tests skipped: ${missing.join(', ')} missing; install Debian's packages: apt-get install slurm-wlm munge`;
  }
  return null;
}

export interface SlurmCluster {
  /** What a process needs in its environment to use this cluster. */
  env: { SLURM_CONF: string };
  /** The default partition. */
  partition: string;
  /** Runs a Slurm client command (squeue, scancel, srun) against this cluster. */
  command(name: string, args: string[]): Promise<RunOutcome & { kind: 'exited' }>;
  /** Jobs squeue lists (queued, running, completing), as `{ id, name, state }`. */
  jobs(): Promise<{ id: string; name: string; state: string }[]>;
  /** The id the next job will get, less one: submits a tiny job and reads its id. */
  lastJobId(): Promise<number>;
  /**
   * Keeps a job COMPLETING for `seconds` once it has ended, as a slow epilog on a real cluster
   * does: the node's epilog (Epilog= in slurm.conf) waits that long before it reports back.
   */
  holdCompleting(jobId: string, seconds: number): void;
  stop(): Promise<void>;
}

export async function startSlurmCluster(): Promise<SlurmCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pr-slurm-'));
  chmodSync(dir, 0o755);
  for (const sub of ['munge', 'state', 'spool', 'holds']) mkdirSync(path.join(dir, sub), { mode: 0o700 });
  const epilog = path.join(dir, 'epilog.sh');
  writeFileSync(
    epilog,
    [
      '#!/bin/sh',
      `hold=${dir}/holds/$SLURM_JOB_ID`,
      '[ -f "$hold" ] || exit 0',
      'end=$(( $(date +%s) + $(cat "$hold") ))',
      'while [ "$(date +%s)" -lt "$end" ]; do sleep 0.2; done',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  const socket = path.join(dir, 'munge', 'munge.sock');
  const [ctldPort, slurmdPort] = [await freePort(), await freePort()];
  const conf = path.join(dir, 'slurm.conf');
  writeFileSync(
    conf,
    [
      `ClusterName=pr${path
        .basename(dir)
        .replace(/[^a-z0-9]/gi, '')
        .toLowerCase()
        .slice(-8)}`,
      'SlurmctldHost=localhost',
      `SlurmctldPort=${ctldPort}`,
      `SlurmdPort=${slurmdPort}`,
      'AuthType=auth/munge',
      'CredType=cred/munge',
      `AuthInfo=socket=${socket}`,
      'SlurmUser=root',
      'SlurmdUser=root',
      `StateSaveLocation=${dir}/state`,
      `SlurmdSpoolDir=${dir}/spool`,
      `SlurmctldPidFile=${dir}/slurmctld.pid`,
      `SlurmdPidFile=${dir}/slurmd.pid`,
      `SlurmctldLogFile=${dir}/slurmctld.log`,
      `SlurmdLogFile=${dir}/slurmd.log`,
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_Core',
      'AccountingStorageType=accounting_storage/none',
      'JobAcctGatherType=jobacct_gather/none',
      'JobCompType=jobcomp/none',
      'MpiDefault=none',
      'ReturnToService=2',
      // More CPUs than the machine has, so -j 16 really runs 16 steps at once as on a cluster.
      'SlurmdParameters=config_overrides',
      'SchedulerParameters=sched_interval=1',
      'MinJobAge=2',
      'KillWait=2',
      'InactiveLimit=0',
      `Epilog=${epilog}`,
      'NodeName=localhost NodeAddr=127.0.0.1 CPUs=16 State=UNKNOWN',
      'PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP',
      '',
    ].join('\n'),
  );
  const env = { SLURM_CONF: conf };
  const started: string[] = [];
  const run = async (command: string, args: string[]) => {
    const outcome = await runProcess({ command, args, cwd: dir, env, timeoutMs: 30_000 });
    if (outcome.kind !== 'exited' || outcome.exitCode !== 0) {
      throw new Error(
        `${command} ${args.join(' ')}: ${outcome.kind === 'spawn-failed' ? outcome.message : outcome.stdout + outcome.stderr}`,
      );
    }
    return outcome;
  };
  const cluster: SlurmCluster = {
    env,
    partition: 'debug',
    async command(name, args) {
      const outcome = await runProcess({ command: name, args, cwd: dir, env, timeoutMs: 60_000 });
      if (outcome.kind !== 'exited') throw new Error(`${name} ${args.join(' ')}: ${outcome.kind}`);
      return outcome;
    },
    async jobs() {
      const { stdout } = await run('squeue', ['--noheader', '--format=%i|%j|%T']);
      return stdout
        .split('\n')
        .filter((line) => line.length > 0)
        .map((line) => {
          const [id = '', name = '', state = ''] = line.split('|');
          return { id, name, state };
        });
    },
    async lastJobId() {
      const { stdout } = await run('srun', ['--quiet', '--job-name=test-probe', 'sh', '-c', 'echo $SLURM_JOB_ID']);
      return Number(stdout.trim());
    },
    holdCompleting(jobId, seconds) {
      writeFileSync(path.join(dir, 'holds', jobId), String(seconds));
    },
    async stop() {
      if (started.length === 3) {
        // No job step may outlive slurmd: its slurmstepd would be left behind.
        await runProcess({ command: 'scancel', args: ['--user=root'], cwd: dir, env, timeoutMs: 30_000 });
        const deadline = Date.now() + 20_000;
        while ((await cluster.jobs().catch(() => [])).length > 0 && Date.now() < deadline) await sleep(200);
      }
      // slurmd before slurmctld, munged last: the reverse of the start.
      for (const pidFile of [...started].reverse()) await stopByPidFile(pidFile);
      if (!process.env.PATCH_REPAIR_KEEP_SLURM) rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await run('/usr/sbin/mungekey', ['--create', '--bits=1024', `--keyfile=${dir}/munge/munge.key`]);
    chmodSync(path.join(dir, 'munge', 'munge.key'), 0o400);
    // Each daemon forks into the background and leaves its pid file; those pids are what stop() ends.
    await run('/usr/sbin/munged', [
      '--force',
      `--socket=${socket}`,
      `--key-file=${dir}/munge/munge.key`,
      `--log-file=${dir}/munge/munged.log`,
      `--pid-file=${dir}/munge/munged.pid`,
      `--seed-file=${dir}/munge/munged.seed`,
    ]);
    started.push(path.join(dir, 'munge/munged.pid'));
    // munged's socket must be reachable by the job steps' users.
    chmodSync(path.join(dir, 'munge'), 0o755);
    await run('/usr/sbin/slurmctld', ['-f', conf, '-i']);
    started.push(path.join(dir, 'slurmctld.pid'));
    await run('/usr/sbin/slurmd', ['-f', conf]);
    started.push(path.join(dir, 'slurmd.pid'));
    await waitForIdleNode(run);
    return cluster;
  } catch (error) {
    await cluster.stop();
    const logs = ['slurmctld.log', 'slurmd.log', 'munge/munged.log'].map((f) => path.join(dir, f)).filter(existsSync);
    throw new Error(`${(error as Error).message}\n(logs were in ${logs.join(', ')})`);
  }
}

async function waitForIdleNode(
  run: (command: string, args: string[]) => Promise<RunOutcome & { kind: 'exited' }>,
): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const state = await run('sinfo', ['--noheader', '--format=%T']).then(
      (o) => o.stdout.trim(),
      () => '',
    );
    if (state === 'idle') return;
    if (Date.now() > deadline) throw new Error(`the test cluster's node did not become idle (sinfo: '${state}')`);
    await sleep(200);
  }
}

async function stopByPidFile(pidFile: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return;
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + 10_000;
  while (alive() && Date.now() < deadline) await sleep(100);
  if (alive()) process.kill(pid, 'SIGKILL');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
