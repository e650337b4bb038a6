// The next run removes the scratch folder a killed run left, and never one of a live run.
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { cleanupStaleScratch, createRunScratch, scratchRecordPath } from '../../src/store/index.js';
import { assertDistIsFresh, describeRun, makeDotDir, removeDotDir, runChild } from './helpers.js';

let dotDir = '';
let workDir = '';
beforeAll(assertDistIsFresh);
afterEach(async () => {
  await removeDotDir(dotDir);
  await rm(workDir, { recursive: true, force: true });
});

const present = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

it('removes the folder of a SIGKILLed run and keeps the folder of the live one', async () => {
  dotDir = await makeDotDir();
  workDir = await mkdtemp(join(tmpdir(), 'store-work-'));
  const ready = join(workDir, 'ready');
  const outcome = await runChild({ op: 'scratch-then-die', dotDir, workDir, runId: 'run-killed', ready });
  expect(outcome.kind === 'signaled', describeRun(outcome)).toBe(true);
  const orphan = await readFile(ready, 'utf8');
  await writeFile(join(orphan, 'workspace-file.c'), 'int main(void) { return 0; }\n');
  expect(orphan.startsWith(workDir)).toBe(true);

  const live = await createRunScratch({ dotDir, workDir, runId: 'run-live' });
  const notices = await cleanupStaleScratch(dotDir);
  expect(notices).toHaveLength(1);
  expect(notices[0]).toContain(orphan);
  expect(await present(orphan)).toBe(false);
  expect(await present(live.dir)).toBe(true);

  await live.dispose();
  expect(await present(live.dir)).toBe(false);
  expect(JSON.parse(await readFile(scratchRecordPath(dotDir), 'utf8')).runs).toEqual([]);
});

it('never deletes a folder the record names unless it is a scratch folder of that run', async () => {
  dotDir = await makeDotDir();
  workDir = await mkdtemp(join(tmpdir(), 'store-work-'));
  const precious = join(workDir, 'patch-repair-not-a-scratch');
  await mkdir(precious);
  await writeFile(join(precious, 'results.csv'), 'keep me\n');
  // Above Linux's largest pid_max: a run that cannot be alive.
  const deadPid = 2 ** 22 + 1;
  const record = { version: 1, runs: [{ dir: precious, run_id: 'r1', pid: deadPid, host: hostname(), created: '' }] };
  await mkdir(join(dotDir, 'patch_repair'), { recursive: true });
  await writeFile(scratchRecordPath(dotDir), JSON.stringify(record));
  expect(await cleanupStaleScratch(dotDir)).toEqual([]);
  expect(await readFile(join(precious, 'results.csv'), 'utf8')).toBe('keep me\n');
});
