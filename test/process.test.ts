import { describe, expect, it } from 'vitest';
import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from '../src/process.js';

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
    const marker = join(dir, 'survived');
    const script = `(trap '' TERM; sleep 2; touch ${marker}) & wait`;
    const outcome = await runProcess({ command: 'sh', args: ['-c', script], cwd, timeoutMs: 300, graceMs: 300 });
    expect(outcome.kind).toBe('timeout');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(existsSync(marker)).toBe(false);
  });

  it('caps output and says so', async () => {
    const outcome = await runProcess({ command: 'sh', args: ['-c', 'head -c 100000 /dev/zero'], cwd, maxOutputBytes: 1000 });
    expect(outcome).toMatchObject({ kind: 'exited', truncated: true });
    if (outcome.kind === 'exited') expect(outcome.stdout.length).toBe(1000);
  });

  it('ends the group when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const outcome = await runProcess({ command: 'sleep', args: ['30'], cwd, signal: controller.signal });
    expect(outcome.kind).toBe('canceled');
    expect(outcome.durationMs).toBeLessThan(5000);
  });
});
