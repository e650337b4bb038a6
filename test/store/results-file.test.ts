// results.json is read by other tools: it is always complete and always matches its schema.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { readResults, resultsPath, writeResults } from '../../src/store/index.js';
import type { RunResults } from '../../src/formats/results.js';
import { resultsFile, runRecord, suggestionRecord } from './fixtures.js';
import { DISCOPOP_RESULTS, tabRecords, tabRows } from '../helpers/discopop-readers.js';
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
  const bad = { ...resultsFile('run-2'), suggestions: [{ id: 3 }] } as unknown as RunResults;
  await expect(writeResults(dotDir, bad)).rejects.toThrow();
  expect(await readFile(resultsPath(dotDir), 'utf8')).toBe(before);
});

it('names the file and the field when results.json was damaged by hand', async () => {
  dotDir = await makeDotDir();
  await writeResults(dotDir, resultsFile('run-1'));
  const damaged = JSON.parse(await readFile(resultsPath(dotDir), 'utf8'));
  damaged.suggestions['3'].status = 'fixed';
  await writeFile(resultsPath(dotDir), JSON.stringify(damaged));
  const error = await readResults(dotDir).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(UsageError);
  expect((error as Error).message).toMatch(/results\.json: suggestions\.3\.status: /);
});

it("writes DiscoPoP's shape: suggestions keyed by id with DiscoPoP's fields and types beside ours, every key sorted", async () => {
  dotDir = await makeDotDir();
  const results = resultsFile('run-1');
  const ok = {
    ...suggestionRecord('10'),
    status: 'ok' as const,
    hotspot: null,
    first_error: null,
    changed_files: [],
    written: false,
  };
  const unapplied = {
    ...suggestionRecord('4'),
    status: 'not_applied' as const,
    written: false,
    changed_files: [],
    accepted_attempt: null,
  };
  await writeResults(dotDir, { ...results, suggestions: [...results.suggestions, unapplied, ok] });
  const text = await readFile(resultsPath(dotDir), 'utf8');
  const document = JSON.parse(text);
  expect(Object.keys(document.suggestions)).toEqual(['3', '4', '10']);
  expect(document.suggestions['3']).toMatchObject({
    id: '3',
    suggestion_id: 3,
    hotspot_type: 'yes',
    hotspot: 'YES',
    status: 'repaired',
    written: true,
    files: [1],
    changed_files: [1],
    patch_set: ['1'],
    attempts: 0,
    unanswered: 0,
    accepted_attempt: 1,
    backend: 'builtin',
    model: null,
    first_error: "main.c:11:40: error: 'sum' not specified in enclosing 'parallel'",
    duration_s: 1.25,
    builtin_rule: 'add-to-reduction',
  });
  // DiscoPoP records no file list for ok and not_applied; unclassified is "unknown"; no error is "".
  expect(document.suggestions['4']).toMatchObject({
    suggestion_id: 4,
    status: 'not_applied',
    files: [],
    patch_set: ['1'],
  });
  expect(document.suggestions['10']).toMatchObject({
    suggestion_id: 10,
    hotspot_type: 'unknown',
    status: 'ok',
    files: [],
    first_error: '',
  });
  const keysSorted = (value: unknown): boolean =>
    value === null ||
    typeof value !== 'object' ||
    (Array.isArray(value)
      ? value.every(keysSorted)
      : Object.keys(value).every((k, i, all) => i === 0 || all[i - 1]! < k || /^\d+$/.test(k)) &&
        Object.values(value).every(keysSorted));
  expect(keysSorted(document)).toBe(true);
  expect(document.version).toBe(2);
  expect(text.indexOf('"run"')).toBeLessThan(text.indexOf('"suggestions"'));
});

it("DiscoPoP's tab shows a row per suggestion of the file: repaired, dry-run repaired and not_applied as DiscoPoP labels them", async () => {
  dotDir = await makeDotDir();
  const results = resultsFile('run-1');
  const dry = { ...suggestionRecord('5'), written: false };
  const unapplied = {
    ...suggestionRecord('4'),
    status: 'not_applied' as const,
    written: false,
    changed_files: [],
    accepted_attempt: null,
  };
  await writeResults(dotDir, { ...results, suggestions: [...results.suggestions, unapplied, dry] });
  const rows = tabRows(tabRecords(await readFile(resultsPath(dotDir), 'utf8')));
  expect(rows).toEqual([
    {
      suggestion: '3',
      hotspot: 'yes',
      status: 'Repaired',
      files: '1 / 1',
      attempts: '0',
      error: "main.c:11:40: error: 'sum' not specified in enclosing 'parallel'",
    },
    {
      suggestion: '4',
      hotspot: 'yes',
      status: 'Patch not applicable',
      files: '-',
      attempts: '0',
      error: "main.c:11:40: error: 'sum' not specified in enclosing 'parallel'",
    },
    {
      suggestion: '5',
      hotspot: 'yes',
      status: 'Repaired',
      files: '1 / 1',
      attempts: '0',
      error: "main.c:11:40: error: 'sum' not specified in enclosing 'parallel'",
    },
  ]);
});

it('reads format 1 (an array), with the meanings of today: a dry-run not_applied is repaired and not written, a failed write-back is failed', async () => {
  dotDir = await makeDotDir();
  const old = (record: object) => {
    const { written: _w, duration_s: _d, ...rest } = { ...suggestionRecord('3'), ...record };
    return rest;
  };
  const file = {
    version: 1,
    run: runRecord('old-run'),
    suggestions: [
      old({ id: '3', status: 'not_applied', reason: null, reason_code: null }),
      old({ id: '4', status: 'not_applied', reason: 'disk full', reason_code: 'write-failed' }),
      old({ id: '5' }),
    ],
  };
  // The old panel showed format 1 as an empty table: it is an array.
  expect(tabRows(tabRecords(JSON.stringify(file)))).toEqual([]);
  await mkdir(dirname(resultsPath(dotDir)), { recursive: true });
  await writeFile(resultsPath(dotDir), JSON.stringify(file));
  const read = await readResults(dotDir);
  expect(read?.suggestions.map((r) => [r.id, r.status, r.written, r.reason_code])).toEqual([
    ['3', 'repaired', false, null],
    ['4', 'failed', false, 'write-failed'],
    ['5', 'repaired', true, null],
  ]);
});

it("reads a results.json DiscoPoP's tool wrote: ids, types and statuses as DiscoPoP's, its run inferred", async () => {
  dotDir = await makeDotDir();
  await mkdir(dirname(resultsPath(dotDir)), { recursive: true });
  await writeFile(resultsPath(dotDir), DISCOPOP_RESULTS);
  const read = await readResults(dotDir);
  expect(read?.run).toMatchObject({
    written_by: 'discopop_patch_repair',
    backend: 'claude',
    mode: 'repair',
    counts: { repaired: 1, not_applied: 1, failed: 1 },
  });
  expect(
    read?.suggestions.map((r) => [
      r.id,
      r.status,
      r.hotspot,
      r.files,
      r.changed_files,
      r.first_error,
      r.accepted_attempt,
    ]),
  ).toEqual([
    ['1', 'repaired', 'YES', ['1', '2'], ['2'], "a.c:3:9: error: 'x' undeclared", 2],
    ['2', 'not_applied', 'MAYBE', [], [], 'patch does not apply', null],
    ['10', 'failed', null, ['1'], [], null, null],
  ]);
});
