// results.json is read by other tools: it is always complete and always matches its schema.
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { readResults, resultsPath, writeResults } from '../../src/store/index.js';
import type { ResultsFile } from '../../src/formats/results.js';
import { resultsFile } from './fixtures.js';
import { makeDotDir, readFolder, removeDotDir } from './helpers.js';

let dotDir = '';
afterEach(async () => removeDotDir(dotDir));

it('writes the results whole and reads them back', async () => {
  dotDir = await makeDotDir();
  await writeResults(dotDir, resultsFile('run-1'));
  expect(await readResults(dotDir)).toEqual(resultsFile('run-1'));
  expect(Object.keys(await readFolder(resultsPath(dotDir).replace(/results\.json$/, '')))).toEqual(['results.json']);
});

it('refuses invalid results and leaves the previous file as it was', async () => {
  dotDir = await makeDotDir();
  await writeResults(dotDir, resultsFile('run-1'));
  const before = await readFile(resultsPath(dotDir), 'utf8');
  const bad = { ...resultsFile('run-2'), suggestions: [{ id: 3 }] } as unknown as ResultsFile;
  await expect(writeResults(dotDir, bad)).rejects.toThrow();
  expect(await readFile(resultsPath(dotDir), 'utf8')).toBe(before);
});

it('names the file and the field when results.json was damaged by hand', async () => {
  dotDir = await makeDotDir();
  await writeResults(dotDir, resultsFile('run-1'));
  const damaged = JSON.parse(await readFile(resultsPath(dotDir), 'utf8'));
  damaged.suggestions[0].status = 'fixed';
  await writeFile(resultsPath(dotDir), JSON.stringify(damaged));
  const error = await readResults(dotDir).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(UsageError);
  expect((error as Error).message).toMatch(/results\.json: suggestions\[0\]\.status: /);
});
