// `show` rebuilds the run from progress.jsonl alone: finished runs in the order the run considered
// the suggestions, killed runs up to where the log ends.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { replayEvents } from '../../src/report/run-replay.js';
import { show } from '../../src/report/show.js';
import { renderSummary } from '../../src/report/summary.js';
import { UsageError } from '../../src/errors.js';
import type { RunRecord } from '../../src/formats/results.js';
import { SAMPLE_RUN, stamped } from './events.js';
import { FakeTerminal } from './fake-terminal.js';

const EVENTS = stamped(SAMPLE_RUN);

function dotDirWithLog(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'report-replay-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const dotDir = join(dir, '.discopop');
  mkdirSync(join(dotDir, 'patch_repair'), { recursive: true });
  writeFileSync(join(dotDir, 'patch_repair', 'progress.jsonl'), text);
  return dotDir;
}

const jsonl = (events: unknown[]) => events.map((e) => `${JSON.stringify(e)}\n`).join('');

describe('a finished run', () => {
  it('lists the suggestions in the order discovery considered them, with the final run record', () => {
    const replay = replayEvents({ events: EVENTS, truncated: false, source: 'progress.jsonl' });
    expect(replay.finished).toBe(true);
    expect(replay.results.suggestions.map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(replay.results.run.counts).toEqual({
      ok: 1,
      repaired: 1,
      failed: 0,
      not_applied: 0,
      agent_unreachable: 1,
      skipped: 1,
    });
    expect(replay.unfinished).toEqual([]);
  });

  it('is shown as a header line, a blank line and the summary', async () => {
    const stream = new FakeTerminal({ tty: false });
    const dotDir = dotDirWithLog(jsonl(EVENTS));
    expect(await show({ dotDir, stream })).toBe(0);
    const replay = replayEvents({ events: EVENTS, truncated: false, source: '' });
    expect(stream.text).toBe(
      `Run run-1 (repair, backend claude, model sonnet), started 2026-01-01T00:00:00.000Z, finished 2026-01-01T00:01:00.000Z, exit code 1\n\n${renderSummary(replay.results)}\n`,
    );
  });
});

describe('the workspaces line', () => {
  const finished = (workspaces: NonNullable<RunRecord['workspaces']>) =>
    EVENTS.map((e) => (e.type === 'run-finished' ? { ...e, run: { ...e.run, workspaces } } : e));

  it.each<[NonNullable<RunRecord['workspaces']>, string]>([
    [
      { count: 2, reference_outputs: 'copied', reference_builds: 1, path_files: [], path_file_count: 0 },
      "Workspaces: 2, each started from copies of the reference build's outputs (they hold no workspace path)",
    ],
    [
      {
        count: 4,
        reference_outputs: 'rebuilt',
        reference_builds: 4,
        path_files: ['build/CMakeCache.txt', 'build/Makefile'],
        path_file_count: 13,
      },
      "Workspaces: 4, 4 reference builds: the reference build's outputs hold the absolute path of the folder they were built in (build/CMakeCache.txt and 12 more), so every workspace ran its own",
    ],
  ])('says which way the workspaces got their reference state (%#)', async (workspaces, line) => {
    const stream = new FakeTerminal({ tty: false });
    expect(await show({ dotDir: dotDirWithLog(jsonl(finished(workspaces))), stream })).toBe(0);
    expect(stream.text.split('\n')[1]).toBe(line);
  });
});

describe('show <id>', () => {
  it.each(['x', 'a b', '../a'])(
    'refuses %j, an id the run did not consider, as a usage error naming the log',
    async (id) => {
      const dotDir = dotDirWithLog(jsonl(EVENTS));
      const shown = show({ dotDir, id, stream: new FakeTerminal({ tty: false }) });
      await expect(shown).rejects.toThrow(UsageError);
      await expect(show({ dotDir, id, stream: new FakeTerminal({ tty: false }) })).rejects.toThrow(
        /progress\.jsonl: suggestion .*: not considered by this run \(it considered a, b, c, d\)$/,
      );
    },
  );
});

describe('a killed run', () => {
  const untilBRepaired = EVENTS.findIndex((e) => e.type === 'suggestion-finished' && e.record.id === 'b') + 1;

  it('counts what finished and names what did not', () => {
    const replay = replayEvents({ events: EVENTS.slice(0, untilBRepaired), truncated: false, source: '' });
    expect(replay.finished).toBe(false);
    expect(replay.results.suggestions.map((r) => r.id)).toEqual(['a', 'b', 'd']);
    expect(replay.unfinished).toEqual(['c']);
    expect(replay.results.run.counts).toMatchObject({ ok: 1, repaired: 1, skipped: 1, agent_unreachable: 0 });
  });

  it('is shown up to its cut-off last line, saying the run did not finish', async () => {
    const whole = jsonl(EVENTS.slice(0, untilBRepaired + 1));
    const dotDir = dotDirWithLog(whole.slice(0, whole.length - 25));
    const stream = new FakeTerminal({ tty: false });
    expect(await show({ dotDir, stream })).toBe(0);
    const lastWhole = EVENTS[untilBRepaired - 1]!.t;
    expect(stream.text).toContain(
      `The run did not finish: ${join(dotDir, 'patch_repair', 'progress.jsonl')} ends at ${lastWhole}, its last line cut off; shown up to there.`,
    );
    expect(stream.text).toContain('Repaired and written: 1\n');
    // The run wrote no totals before it was killed: the funnel is counted from its log.
    expect(stream.text).toContain(
      'Agent answers (claude, sonnet): 2 → extracted 2 → applies 2 → canonical 2 → directives kept 2 → builds 1 → written 1\n',
    );
    expect(stream.text.trimEnd().split('\n').at(-1)).toBe(
      'Not finished: c (the run ended before their results were recorded)',
    );
  });

  it('says so when the log holds no complete line', async () => {
    const dotDir = dotDirWithLog('{"t":"2026-01-01T00:00:00.000Z","type":"run-sta');
    await expect(show({ dotDir, stream: new FakeTerminal({ tty: false }) })).rejects.toThrow(
      /progress\.jsonl: holds no complete event: the run was stopped as it began$/,
    );
  });

  it('refuses a log without the start of a run, naming the file', async () => {
    const dotDir = dotDirWithLog(jsonl(EVENTS.slice(1, 4)));
    await expect(show({ dotDir, stream: new FakeTerminal({ tty: false }) })).rejects.toThrow(UsageError);
    await expect(show({ dotDir, stream: new FakeTerminal({ tty: false }) })).rejects.toThrow(
      /progress\.jsonl: line 1: no run-started event/,
    );
  });
});
