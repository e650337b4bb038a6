// Each run moves the previous run's outputs to history/<its run id>/ before writing its own.
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startRun, writeResults } from '../../src/store/index.js';
import { resultsFile, runRecord } from './fixtures.js';
import { makeDotDir, readFolder, removeDotDir } from './helpers.js';

let dotDir = '';
afterEach(async () => removeDotDir(dotDir));

const repair = () => join(dotDir, 'patch_repair');

async function leavePreviousRun(runId: string): Promise<void> {
  await writeResults(dotDir, resultsFile(runId));
  const started = { t: '2026-11-30T14:00:00.000Z', type: 'run-started', run: runRecord(runId) };
  await writeFile(join(repair(), 'progress.jsonl'), `${JSON.stringify(started)}\n`);
  await mkdir(join(repair(), 'attempts', '3', '1'), { recursive: true });
  await writeFile(join(repair(), 'attempts', '3', '1', 'answer.txt'), 'the answer\n');
}

it('moves results.json, progress.jsonl and attempts/ of the previous run to history/<run id>/', async () => {
  dotDir = await makeDotDir();
  await leavePreviousRun('20261130-140000-ab12');
  await mkdir(join(repair(), 'backups'), { recursive: true });

  expect(await startRun(dotDir, '20261130-150000-cd34')).toMatchObject({ previous: '20261130-140000-ab12' });

  expect((await readdir(repair())).sort()).toEqual(['backups', 'history']);
  const moved = join(repair(), 'history', '20261130-140000-ab12');
  expect((await readdir(moved)).sort()).toEqual(['attempts', 'progress.jsonl', 'results.json']);
  expect(await readFile(join(moved, 'attempts', '3', '1', 'answer.txt'), 'utf8')).toBe('the answer\n');
  expect(await startRun(dotDir, '20261130-160000-ef56')).toEqual({ previous: null, dir: null });
});

it('takes the run id from progress.jsonl when a killed run never wrote results.json', async () => {
  dotDir = await makeDotDir();
  await leavePreviousRun('killed-run');
  await rm(join(repair(), 'results.json'));
  // Killed in the middle of a line.
  await writeFile(join(repair(), 'progress.jsonl'), '{"t":"2026', { flag: 'a' });

  expect(await startRun(dotDir, 'next')).toMatchObject({ previous: 'killed-run' });
  expect(Object.keys(await readFolder(join(repair(), 'history', 'killed-run'))).sort()).toEqual([
    'attempts/',
    'progress.jsonl',
  ]);
});

it('finishes an interrupted rotation into the same history folder', async () => {
  dotDir = await makeDotDir();
  await leavePreviousRun('r1');
  // A kill after attempts/ was moved: the rest follows it next time.
  const target = join(repair(), 'history', 'r1');
  await mkdir(target, { recursive: true });
  await rename(join(repair(), 'attempts'), join(target, 'attempts'));

  expect(await startRun(dotDir, 'r2')).toMatchObject({ previous: 'r1' });
  expect((await readdir(target)).sort()).toEqual(['attempts', 'progress.jsonl', 'results.json']);
});
