// The one process runner: exit codes and both streams, stdin, spawn failures as values, the whole
// process group killed on timeout or abort, a timeout that starts at a marker, and capped output.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from '../src/process.js';
import { isRunning } from './helpers/process-state.js';

const cwd = tmpdir();

describe('runProcess', () => {
  it('returns the exit code and both streams', async () => {
    const outcome = await runProcess({ command: 'sh', args: ['-c', 'echo out; echo err >&2; exit 3'], cwd });
    expect(outcome).toMatchObject({ kind: 'exited', exitCode: 3, stdout: 'out\n', stderr: 'err\n' });
  });

  it('feeds stdin and closes it', async () => {
    const outcome = await runProcess({ command: 'cat', cwd, input: 'a "quoted"\nprompt\n' });
    expect(outcome).toMatchObject({ kind: 'exited', exitCode: 0, stdout: 'a "quoted"\nprompt\n' });
  });

  it('reports a missing binary as spawn-failed, not as an exit code', async () => {
    const outcome = await runProcess({ command: 'no-such-binary-patch-repair', cwd });
    expect(outcome.kind).toBe('spawn-failed');
  });

  it('kills the whole process group on timeout, including a grandchild that ignores SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pr-proc-'));
    const pidFile = join(dir, 'grandchild.pid');
    const script = `sh -c 'trap "" TERM; echo $$ > ${pidFile}; while :; do sleep 1; done' & wait`;
    const outcome = await runProcess({ command: 'sh', args: ['-c', script], cwd, timeoutMs: 1000, graceMs: 300 });
    expect(outcome.kind).toBe('timeout');
    expect(isRunning(Number(readFileSync(pidFile, 'utf8')))).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts the timeout only when stdout carries the marker (a queued srun is not yet running the build)', async () => {
    // Two seconds of "queue" before the marker, with a one-second timeout: no timeout yet.
    const queued = await runProcess({
      command: 'sh',
      args: ['-c', 'sleep 2; echo built'],
      cwd,
      timeoutMs: 1000,
      timeoutStartsOn: 'STARTED',
    });
    expect(queued).toMatchObject({ kind: 'exited', exitCode: 0, stdout: 'built\n' });
    // The marker split across two writes still starts it, and the limit counts from there.
    const hung = await runProcess({
      command: 'sh',
      args: ['-c', 'sleep 2; printf STA; printf "RTED\\n"; sleep 600'],
      cwd,
      timeoutMs: 1000,
      timeoutStartsOn: 'STARTED',
    });
    expect(hung).toMatchObject({ kind: 'timeout', stdout: 'STARTED\n' });
    expect(hung.kind === 'spawn-failed' ? 0 : hung.durationMs).toBeGreaterThanOrEqual(3000);
  });

  it('caps output and says so', async () => {
    const outcome = await runProcess({
      command: 'sh',
      args: ['-c', 'head -c 100000 /dev/zero'],
      cwd,
      maxOutputBytes: 1000,
    });
    expect(outcome).toMatchObject({ kind: 'exited', truncated: true });
    if (outcome.kind === 'exited') expect(outcome.stdout.length).toBe(1000);
  });

  it('ends the group when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    // Far past the test's own timeout: only the abort can end it.
    const outcome = await runProcess({ command: 'sleep', args: ['600'], cwd, signal: controller.signal });
    expect(outcome.kind).toBe('canceled');
  });
});
