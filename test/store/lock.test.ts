// Two runs must never share one .discopop; a lock left by a killed run must not block the next.
import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { RefusedError } from '../../src/errors.js';
import { acquireLock, lockPath } from '../../src/store/index.js';
import { assertDistIsFresh, describeRun, makeDotDir, removeDotDir, runChild } from './helpers.js';

let dotDir = '';
beforeAll(assertDistIsFresh);
afterEach(async () => removeDotDir(dotDir));

async function waitForFile(path: string): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const text = await readFile(path, 'utf8').catch(() => '');
    if (text) return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${path} never appeared`);
}

it('refuses while a live run holds the lock, naming its pid, and recovers once it is SIGKILLed', async () => {
  dotDir = await makeDotDir();
  const ready = join(dotDir, '..', 'holder.pid');
  const holder = runChild({ op: 'hold-lock', dotDir, ready });
  const pid = Number(await waitForFile(ready));

  const refused = await acquireLock(dotDir).then(
    () => null,
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(RefusedError);
  expect((refused as RefusedError).exitCode).toBe(3);
  expect((refused as RefusedError).message).toContain(`pid ${pid}`);

  process.kill(pid, 'SIGKILL');
  const outcome = await holder;
  expect(outcome.kind === 'signaled' && outcome.signal === 'SIGKILL', describeRun(outcome)).toBe(true);

  const lock = await acquireLock(dotDir);
  expect(lock.notice).toContain(`pid ${pid}`);
  expect(JSON.parse(await readFile(lockPath(dotDir), 'utf8')).pid).toBe(process.pid);
  await lock.release();
  await expect(readFile(lockPath(dotDir))).rejects.toThrow(/ENOENT/);
});

it('refuses a second acquire in the same live process until the first is released', async () => {
  dotDir = await makeDotDir();
  const first = await acquireLock(dotDir);
  expect(first.notice).toBeNull();
  await expect(acquireLock(dotDir)).rejects.toThrow(RefusedError);
  await first.release();
  const second = await acquireLock(dotDir);
  expect(second.notice).toBeNull();
  await second.release();
});

it('takes over a lock recorded on another host', async () => {
  dotDir = await makeDotDir();
  await acquireLock(dotDir).then((lock) => lock.release());
  await writeFile(
    lockPath(dotDir),
    JSON.stringify({ pid: process.pid, host: 'some-other-node', started: '2026-11-30T10:00:00.000Z' }),
  );
  const lock = await acquireLock(dotDir);
  expect(lock.notice).toContain('some-other-node');
  await lock.release();
});

it('releases the lock when the run ends through process.exit without calling release()', async () => {
  dotDir = await makeDotDir();
  const outcome = await runChild({ op: 'lock-then-exit', dotDir });
  expect(outcome.kind === 'exited' && outcome.exitCode === 0, describeRun(outcome)).toBe(true);
  await expect(readFile(lockPath(dotDir))).rejects.toThrow(/ENOENT/);
});

it("lets exactly one of several runs starting together take over a dead run's lock", async () => {
  dotDir = await makeDotDir();
  await acquireLock(dotDir).then((lock) => lock.release());
  // Above Linux's largest pid_max: a holder that cannot be alive.
  await writeFile(
    lockPath(dotDir),
    JSON.stringify({ pid: 2 ** 22 + 1, host: hostname(), started: '2026-11-30T10:00:00.000Z' }),
  );
  const outcomes = await Promise.all([1, 2, 3, 4].map(() => runChild({ op: 'try-lock', dotDir, holdMs: 2000 })));
  const lines = outcomes.map((o) => (o.kind === 'exited' ? o.stdout.trim() : describeRun(o)));
  expect(
    lines.filter((line) => line.startsWith('won ')),
    lines.join('\n'),
  ).toHaveLength(1);
  expect(
    lines.filter((line) => line.startsWith('refused RefusedError: ')),
    lines.join('\n'),
  ).toHaveLength(3);
  await expect(readFile(lockPath(dotDir))).rejects.toThrow(/ENOENT/);
});
