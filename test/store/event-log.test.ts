// progress.jsonl keeps every event emitted before a kill, and `show` can read what is left.
import { appendFile } from 'node:fs/promises';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { eventLogPath, openEventLog, readEventLog } from '../../src/store/index.js';
import { assertDistIsFresh, describeRun, makeDotDir, removeDotDir, runChild } from './helpers.js';

let dotDir = '';
beforeAll(assertDistIsFresh);
afterEach(async () => removeDotDir(dotDir));

it('a SIGKILLed run leaves every event it emitted, readable; a torn last line is reported, not fatal', async () => {
  dotDir = await makeDotDir();
  const outcome = await runChild({ op: 'emit-then-die', dotDir, count: 3 });
  expect(outcome.kind === 'signaled', describeRun(outcome)).toBe(true);

  const read = await readEventLog(dotDir);
  expect(read.truncated).toBe(false);
  expect(read.events.map((e) => (e.type === 'notice' ? e.message : e.type))).toEqual(['event 0', 'event 1', 'event 2']);
  expect(read.events.every((e) => !Number.isNaN(Date.parse(e.t)))).toBe(true);

  await appendFile(eventLogPath(dotDir), '{"t":"2026-11-30T14:00:00.000Z","type":"not');
  const torn = await readEventLog(dotDir);
  expect(torn.truncated).toBe(true);
  expect(torn.events).toHaveLength(3);
});

it('appends to the log across opens and refuses an event that does not match the schema', async () => {
  dotDir = await makeDotDir();
  const first = openEventLog(dotDir);
  first.emit({ type: 'repair-started', id: '3', index: 1, total: 2 });
  await first.close();
  const second = openEventLog(dotDir);
  expect(() => second.emit({ type: 'repair-started', id: '4', index: 'two' } as never)).toThrow();
  second.emit({ type: 'written', id: '3', files: ['1'], digest: 'sha256:00' });
  await second.close();
  expect(() => second.emit({ type: 'notice', level: 'info', message: 'late' })).toThrow(/closed/);

  expect((await readEventLog(dotDir)).events.map((e) => e.type)).toEqual(['repair-started', 'written']);
});

it('names the file and line of a damaged line in the middle', async () => {
  dotDir = await makeDotDir();
  const log = openEventLog(dotDir);
  log.emit({ type: 'notice', level: 'warning', message: 'one' });
  await log.close();
  await appendFile(
    eventLogPath(dotDir),
    'garbage\n{"t":"2026-11-30T14:00:00.000Z","type":"notice","level":"info","message":"x"}\n',
  );
  const error = await readEventLog(dotDir).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(UsageError);
  expect((error as Error).message).toBe(`${eventLogPath(dotDir)}: line 2: not a JSON line`);
});

it('says plainly that no run was recorded when progress.jsonl is missing', async () => {
  dotDir = await makeDotDir();
  await expect(readEventLog(dotDir)).rejects.toThrow(/progress\.jsonl: not found/);
});
