// Where a build's command runs: here (local), or as a Slurm job step through srun (slurm). Both
// run the same command with the same environment and working directory and return the same
// RunOutcome; the slurm launcher adds one more outcome, `launch-failed`, for when Slurm itself
// could not run the step (node failure, preemption, a cancel from outside, srun unable to launch):
// that says nothing about the build and is retried by the pool, never recorded as a failed build.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RefusedError } from '../errors.js';
import { describeOutcome, runProcess, type RunOutcome } from '../process.js';

export type LauncherName = 'local' | 'slurm';
export const LAUNCHERS: readonly LauncherName[] = ['local', 'slurm'];

export interface StepRequest {
  /** What the step builds: a suggestion id, `reference`, `openmp-probe`. Names the Slurm job. */
  label: string;
  command: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
}

export type StepOutcome = RunOutcome | { kind: 'launch-failed'; reason: string; durationMs: number };

export interface Launcher {
  readonly name: LauncherName;
  /** Proves that builds can run where this launcher sends them; throws RefusedError if not. */
  preflight(o: { scratchDir: string; workDir: string; signal: AbortSignal }): Promise<void>;
  run(step: StepRequest): Promise<StepOutcome>;
  /**
   * Cancels every job this launcher submitted that is still queued or running, and waits until
   * squeue no longer lists them; `say` gets a line for the user when that takes long, and when a
   * job is still listed after the wait or squeue could not be asked.
   */
  cancelAll(say: (line: string) => void): Promise<void>;
}

export function createLauncher(o: { name: LauncherName; args: readonly string[]; runId: string }): Launcher {
  return o.name === 'slurm' ? new SlurmLauncher(o.runId, o.args) : localLauncher;
}

const localLauncher: Launcher = {
  name: 'local',
  async preflight() {},
  run: (step) =>
    runProcess({
      command: step.command[0] as string,
      args: step.command.slice(1),
      cwd: step.cwd,
      env: step.env,
      timeoutMs: step.timeoutMs,
      signal: step.signal,
    }),
  async cancelAll() {},
};

const NOT_STARTED: StepOutcome = { kind: 'canceled', stdout: '', stderr: '', truncated: false, durationMs: 0 };

/**
 * Beyond the build timeout, Slurm's own limit leaves this long for patch-repair's timer to stop
 * the step first; it only acts when patch-repair is gone. Slurm counts limits in whole minutes.
 */
const TIME_LIMIT_GRACE_S = 60;
/**
 * How long cancelAll waits for cancelled jobs to leave squeue. A job stays COMPLETING while its
 * node cleans up: an epilog, and a step whose output some process still holds open until
 * slurmstepd gives up on it (Slurm's EioTimeout, 60 s unless the cluster sets another).
 */
const CANCEL_WAIT_MS = 90_000;
/** After this long, cancelAll says what it is waiting for. */
const CANCEL_WAIT_NOTICE_MS = 5_000;
/**
 * An interrupted or timed-out step is ended through Slurm (endStep), which sends the step SIGTERM,
 * so the wrapper below takes every process of the step with it. srun's own SIGTERM
 * handling is no way to end it: srun passes SIGKILL on, which no trap sees (a process the build
 * detached then runs on, holding the step's output, and slurmstepd keeps the job COMPLETING for
 * a minute), and drops the signal altogether between its allocation and the launch of the step.
 * The cancel is repeated this often until srun is gone, since the first may come before the job
 * exists.
 */
const CANCEL_REPEAT_MS = 1_000;
/** How long srun may take to end after its step was signalled before it is signalled itself. */
const SRUN_END_WAIT_MS = 10_000;
/** How long srun may take to end after SIGTERM before it gets SIGKILL. */
const SRUN_GRACE_MS = 20_000;

/** `patch-repair:<run>:<what>`: findable in squeue, and what the next run cancels after a kill. */
export function jobName(runId: string, label: string): string {
  return `${jobNamePrefix(runId)}${label}`;
}

function jobNamePrefix(runId: string): string {
  return `patch-repair:${runId}:`;
}

export function slurmTimeLimit(timeoutMs: number): string {
  return String(Math.ceil((Math.ceil(timeoutMs / 1000) + TIME_LIMIT_GRACE_S) / 60));
}

/**
 * Each step prints a start line and, once the build's command has ended, a line with its exit
 * code, both carrying a token of this run. The start line starts the build timeout (time spent
 * in the queue is not build time); the exit line tells a build that ran to its end, whatever its
 * code, from a step Slurm ended. Both lines are taken out of the output. The command's stderr
 * joins its stdout, so what srun itself prints on stderr is Slurm's words alone.
 *
 * When Slurm ends a step it signals the processes it tracks; with proctrack/linuxproc a process
 * forked after that scan whose parent then died is no longer tracked and runs on. The step is
 * its own process group, so the wrapper passes the signal on to the whole group (waiting in the
 * background, because a shell runs traps only between foreground commands) and kills the group a
 * second later, as the local launcher does.
 */
const STEP_WRAPPER = [
  't=$1; shift',
  'trap \'trap "" TERM INT HUP; kill -TERM 0; sleep 1; kill -KILL 0\' TERM INT HUP',
  'printf "%s:start\\n" "$t"',
  '"$@" 2>&1 & wait $!; rc=$?',
  'printf "\\n%s:exit:%s\\n" "$t" "$rc"; exit $rc',
].join('\n');

class SlurmLauncher implements Launcher {
  readonly name = 'slurm';
  private readonly token = `patch-repair-step-${randomBytes(6).toString('hex')}`;
  /** sruns started so far, and how many of them the last finished cancelAll came after. */
  private sruns = 0;
  private cancelledUpTo = 0;

  constructor(
    private readonly runId: string,
    private readonly userArgs: readonly string[],
  ) {}

  async preflight(o: { scratchDir: string; workDir: string; signal: AbortSignal }): Promise<void> {
    const token = randomBytes(16).toString('hex');
    const file = join(o.scratchDir, 'slurm-preflight-token');
    await writeFile(file, `${token}\n`);
    o.signal.throwIfAborted();
    const outcome = await runProcess({
      command: 'srun',
      args: [
        ...this.srunArgs('preflight', 60_000, o.scratchDir),
        'sh',
        '-c',
        'echo "node: $(hostname)"; cat "$1"',
        'sh',
        file,
      ],
      cwd: o.scratchDir,
      signal: o.signal,
    });
    // Nothing runs a preflight beside it, so it counts once it is known to have reached Slurm.
    if (outcome.kind !== 'spawn-failed') this.sruns++;
    if (outcome.kind === 'canceled') o.signal.throwIfAborted();
    const srun = ['srun', ...this.userArgs].join(' ');
    if (outcome.kind === 'spawn-failed') {
      throw new RefusedError(
        `--launcher slurm: ${srun} could not be started (${outcome.message}); run patch-repair where Slurm's commands work, such as a login node`,
      );
    }
    const node = /^node: (.*)$/m.exec(outcome.stdout)?.[1];
    if (node === undefined) {
      const words = slurmWords(outcome.stderr) || `srun ${describeOutcome(outcome)}`;
      throw new RefusedError(`--launcher slurm: Slurm did not run the preflight job (${srun}): ${words}`);
    }
    if (!outcome.stdout.includes(token)) {
      const why =
        oneLine(outcome.stderr.replace(/^srun: error: .*task \d+: .*$/gm, '')) ||
        'the token file read back differently';
      throw new RefusedError(
        `--launcher slurm: the compute node ${node} cannot see --work-dir ${o.workDir} (${why}); choose a --work-dir on a file system the compute nodes share`,
      );
    }
  }

  async run(step: StepRequest): Promise<StepOutcome> {
    // srun started now would submit a job after cancelAll may have looked for the run's jobs.
    if (step.signal.aborted) return NOT_STARTED;
    this.sruns++;
    const started = Date.now();
    let repeat: NodeJS.Timeout | undefined;
    const cancel = () => {
      void this.endStep(step.label);
      repeat ??= setInterval(() => void this.endStep(step.label), CANCEL_REPEAT_MS);
    };
    const outcome = await runProcess({
      command: 'srun',
      args: [
        ...this.srunArgs(step.label, step.timeoutMs, step.cwd),
        'sh',
        '-c',
        STEP_WRAPPER,
        'sh',
        this.token,
        ...step.command,
      ],
      cwd: step.cwd,
      env: step.env,
      timeoutMs: step.timeoutMs,
      timeoutStartsOn: `${this.token}:start\n`,
      signal: step.signal,
      graceMs: SRUN_GRACE_MS,
      askToEnd: { ask: cancel, waitMs: SRUN_END_WAIT_MS },
    }).finally(() => clearInterval(repeat));
    if (outcome.kind === 'spawn-failed')
      return {
        kind: 'launch-failed',
        reason: `srun could not be started: ${outcome.message}`,
        durationMs: outcome.durationMs,
      };
    if (outcome.kind === 'timeout' || outcome.kind === 'canceled') {
      // srun signalled after all may have left its job behind.
      await this.cancelJob(step.label);
      return { ...outcome, stdout: this.buildOutput(outcome.stdout).text, stderr: '' };
    }
    const { text, exitCode } = this.buildOutput(outcome.stdout);
    const captured = { stdout: text, stderr: '', truncated: outcome.truncated, durationMs: Date.now() - started };
    // Slurm signals every process of the step at once: the build may die first and the wrapper
    // still print its exit line, so Slurm's own cancel line decides.
    if (/\*\*\* (STEP|JOB) \S+ ON \S+ CANCELLED .*DUE TO TIME LIMIT/.test(outcome.stderr))
      return { kind: 'timeout', ...captured };
    const endedBySlurm = /\*\*\* (STEP|JOB) \S+ ON \S+ CANCELLED/.test(outcome.stderr);
    if (exitCode !== undefined && !endedBySlurm) return { kind: 'exited', exitCode, ...captured };
    // Output cut at the size limit loses the exit line, not the build's result.
    if (outcome.truncated && outcome.kind === 'exited' && !endedBySlurm)
      return { kind: 'exited', exitCode: outcome.exitCode, ...captured };
    return {
      kind: 'launch-failed',
      reason: slurmWords(outcome.stderr) || `srun ${describeOutcome(outcome)} before the build ended`,
      durationMs: captured.durationMs,
    };
  }

  async cancelAll(say: (line: string) => void): Promise<void> {
    const upTo = this.sruns;
    if (upTo === this.cancelledUpTo) return;
    const result = await cancelRunJobs(this.runId, say);
    if ('problem' in result) {
      say(
        `could not make sure the Slurm jobs of this run are gone (${result.problem}); look for jobs named ${jobNamePrefix(this.runId)}* in squeue`,
      );
      return;
    }
    // Jobs still listed were cancelled: waiting for them again would find the same.
    this.cancelledUpTo = upTo;
    if (result.left.length > 0) say(stillListed(result.left));
  }

  private srunArgs(label: string, timeoutMs: number, cwd: string): string[] {
    return [
      '--quiet',
      `--job-name=${jobName(this.runId, label)}`,
      `--time=${slurmTimeLimit(timeoutMs)}`,
      '--nodes=1',
      '--ntasks=1',
      `--chdir=${cwd}`,
      '--export=ALL',
      ...this.userArgs,
    ];
  }

  private buildOutput(stdout: string): { text: string; exitCode?: number } {
    let text = stdout;
    const start = `${this.token}:start\n`;
    const at = text.indexOf(start);
    if (at >= 0) text = text.slice(0, at) + text.slice(at + start.length);
    const end = text.lastIndexOf(`\n${this.token}:exit:`);
    if (end < 0) return { text };
    const exitCode = Number(/^:exit:(\d+)/.exec(text.slice(end + 1 + this.token.length))?.[1]);
    return { text: text.slice(0, end), ...(Number.isInteger(exitCode) && { exitCode }) };
  }

  private async cancelJob(label: string): Promise<void> {
    await runProcess({
      command: 'scancel',
      args: [`--name=${jobName(this.runId, label)}`, `--user=${currentUser()}`],
      cwd: '/',
      timeoutMs: 30_000,
    });
  }

  /**
   * A job still waiting is cancelled; a running one's step gets SIGTERM, which the wrapper passes on
   * to the whole build before it ends, and srun ends with the step. Cancelling a running job would
   * make srun abort the step with SIGKILL, racing the wrapper.
   */
  private async endStep(label: string): Promise<void> {
    const job = [`--name=${jobName(this.runId, label)}`, `--user=${currentUser()}`];
    await runProcess({ command: 'scancel', args: ['--state=PENDING', ...job], cwd: '/', timeoutMs: 30_000 });
    await runProcess({ command: 'scancel', args: ['--signal=TERM', ...job], cwd: '/', timeoutMs: 30_000 });
  }
}

interface ListedJob {
  id: string;
  state: string;
}

/**
 * Cancels every job of a run (by its job names) and waits until squeue no longer lists any: it
 * looks again until then, so a job submitted while it cancels is cancelled too. Returns how many
 * it cancelled and what was still listed when the wait ran out, or a line saying why Slurm could
 * not be asked.
 */
export async function cancelRunJobs(
  runId: string,
  say: (line: string) => void = () => {},
): Promise<{ cancelled: number; left: ListedJob[] } | { problem: string }> {
  const prefix = jobNamePrefix(runId);
  const list = async (): Promise<ListedJob[] | { problem: string; lasting: boolean }> => {
    const outcome = await runProcess({
      command: 'squeue',
      args: [`--user=${currentUser()}`, '--noheader', '--format=%i|%j|%T'],
      cwd: '/',
      timeoutMs: 30_000,
    });
    if (outcome.kind === 'spawn-failed') return { problem: `squeue ${describeOutcome(outcome)}`, lasting: true };
    if (outcome.kind !== 'exited' || outcome.exitCode !== 0)
      return { problem: `squeue ${describeOutcome(outcome)}: ${oneLine(outcome.stderr)}`, lasting: false };
    return outcome.stdout
      .split('\n')
      .map((line) => line.split('|'))
      .filter(([, name]) => name?.startsWith(prefix))
      .map(([id, , state]) => ({ id: id as string, state: state ?? '' }));
  };
  const cancelled = new Set<string>();
  const started = Date.now();
  let said = false;
  for (;;) {
    const listed = await list();
    // squeue fails now and then on a busy controller; only one that keeps failing is a problem.
    if ('problem' in listed) {
      if (listed.lasting || Date.now() - started > CANCEL_WAIT_MS) return { problem: listed.problem };
    } else {
      if (listed.length === 0) return { cancelled: cancelled.size, left: [] };
      const fresh = listed.filter((job) => !cancelled.has(job.id)).map((job) => job.id);
      if (fresh.length > 0) {
        await runProcess({ command: 'scancel', args: fresh, cwd: '/', timeoutMs: 30_000 });
        for (const id of fresh) cancelled.add(id);
      }
      const waited = Date.now() - started;
      if (waited > CANCEL_WAIT_MS) return { cancelled: cancelled.size, left: listed };
      if (!said && waited > CANCEL_WAIT_NOTICE_MS) {
        said = true;
        say(`waiting for Slurm to end ${listed.length} cancelled job(s) of this run (${describeJobs(listed)})`);
      }
    }
    await sleep(250);
  }
}

function describeJobs(jobs: readonly ListedJob[]): string {
  return jobs.map((job) => `${job.id} ${job.state}`).join(', ');
}

function stillListed(jobs: readonly ListedJob[]): string {
  return `Slurm still lists ${jobs.length} cancelled job(s) of this run after ${CANCEL_WAIT_MS / 1000} s (${describeJobs(jobs)}); a COMPLETING job runs nothing more and leaves squeue once its node has finished cleaning up`;
}

/** The numeric uid: Slurm takes it where a name is asked for, and it needs no passwd entry. */
function currentUser(): string {
  return String(process.getuid?.() ?? 0);
}

/** Slurm's own error lines (srun, slurmstepd), joined into one. */
function slurmWords(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^(srun|slurmstepd[^:]*): error: /.test(line))
    .map((line) => line.replace(/^(srun|slurmstepd[^:]*): error: /, ''));
  return [...new Set(lines)].join('; ');
}

function oneLine(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .join('; ');
}

/**
 * --launcher-args as a shell would split it: spaces separate words, quotes group them, a
 * backslash escapes the next character. No expansion of any kind happens.
 */
export function splitLauncherArgs(raw: string): string[] | { problem: string } {
  const words: string[] = [];
  let word: string | null = null;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && (raw[i + 1] === '"' || raw[i + 1] === '\\'))
        word = `${word ?? ''}${raw[++i] as string}`;
      else word = `${word ?? ''}${c}`;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\') {
      if (i + 1 >= raw.length) return { problem: 'ends with a lone backslash' };
      word = (word ?? '') + (raw[++i] as string);
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? '') + c;
  }
  if (quote) return { problem: `an unclosed ${quote} quote` };
  if (word !== null) words.push(word);
  return words;
}

/** For the scratch cleanup: cancels the Slurm jobs a killed run left, and says what it did. */
export async function cancelLeftJobs(run: { run_id: string; launcher: LauncherName }): Promise<string[]> {
  if (run.launcher !== 'slurm') return [];
  const result = await cancelRunJobs(run.run_id);
  if ('problem' in result)
    return [
      `could not cancel the Slurm jobs left by run ${run.run_id} (${result.problem}); look for jobs named ${jobNamePrefix(run.run_id)}* in squeue`,
    ];
  return [
    ...(result.cancelled > 0 ? [`cancelled ${result.cancelled} Slurm job(s) left by run ${run.run_id}`] : []),
    ...(result.left.length > 0 ? [stillListed(result.left)] : []),
  ];
}
