// The live reporter: bars redrawn in place on an interactive terminal, and plain lines without a
// single escape code in pipes, CI and NO_COLOR — fed the events of a small run.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReporter, EventLines } from '../../src/report/reporter.js';
import type { EventInput, RunEvent } from '../../src/formats/events.js';
import { SAMPLE_RUN, stamped } from './events.js';
import { FakeTerminal } from './fake-terminal.js';
import { renderScreen } from './screen.js';

const EVENTS = stamped(SAMPLE_RUN);
const SUMMARY = 'id  status\nb   repaired';
const BAR_CHARS = /[█░]/;

function plainLines(events: RunEvent[]): string[] {
  const lines = new EventLines();
  return events.flatMap((event) => lines.lines(event));
}

describe('what the lines say', () => {
  const lastRecord = SAMPLE_RUN.findLast((e) => e.type === 'suggestion-finished')!;
  const record = lastRecord.type === 'suggestion-finished' ? lastRecord.record : null!;

  it('announces a repair only when its first call starts; a suggestion the circuit breaker keeps from the agent says so instead', () => {
    const reason = 'agent unreachable for 3 suggestions in a row; no further calls';
    const events: EventInput[] = [
      { type: 'repair-started', id: 'e', index: 4, total: 6 },
      {
        type: 'suggestion-finished',
        record: { ...record, id: 'e', status: 'agent_unreachable', attempts: 0, unanswered: 0, reason },
      },
    ];
    const lines = plainLines(stamped(events));
    expect(lines.join('\n')).not.toContain('Repairing suggestion e');
    expect(lines).toEqual([`Suggestion e (4 of 6): no repair tried: ${reason}`]);
  });

  it('names the first new compiler error on the line of a build rejection, not just the heading before it', () => {
    const reason =
      'The project does not build with the corrected patch set. New compiler errors:\nsrc/main.c:12:5: error: expected expression\nsrc/main.c:14:1: error: x undeclared';
    const lines = plainLines(
      stamped([
        { type: 'check', id: 'b', attempt: 2, candidate: null, candidates: 1, check: 'builds', passed: false, reason },
      ]),
    );
    expect(lines).toEqual([
      '  suggestion b, attempt 2: rejected by builds: The project does not build with the corrected patch set. New compiler errors: src/main.c:12:5: error: expected expression (and 1 more line)',
    ]);
  });

  it('says which candidate of an answer offering alternatives a rejection is about', () => {
    const lines = plainLines(
      stamped([
        {
          type: 'check',
          id: 'b',
          attempt: 2,
          candidate: 2,
          candidates: 3,
          check: 'dry-run-apply',
          passed: false,
          reason: 'hunk 1 does not apply',
        },
      ]),
    );
    expect(lines).toEqual([
      '  suggestion b, attempt 2, alternative 2 of 3: rejected by dry-run-apply: hunk 1 does not apply',
    ]);
  });
});

describe('outside an interactive terminal', () => {
  it.each([
    ['a pipe', { tty: false }, {}],
    ['a terminal in CI', { tty: true }, { CI: 'true' }],
    ['a terminal with NO_COLOR', { tty: true }, { NO_COLOR: '1' }],
  ])(
    '%s gets one plain line per event worth seeing on the live stream, the summary alone on the answer stream, and no escape code',
    (_what, terminal, env) => {
      const live = new FakeTerminal(terminal);
      const answer = new FakeTerminal(terminal);
      const reporter = createReporter({ stream: answer, live, env });
      for (const event of EVENTS) reporter.handle(event);
      reporter.notice('a stale lock was removed');
      reporter.print(`\n${SUMMARY}`);
      reporter.close();
      expect(live.text + answer.text).not.toContain('\x1b');
      expect(live.text).toBe(`${[...plainLines(EVENTS), 'note: a stale lock was removed'].join('\n')}\n`);
      expect(answer.text).toBe(`\n${SUMMARY}\n`);
    },
  );
});

describe('on an interactive terminal', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Feeds the events with a redraw after every `burst` of them: several lines may wait for one redraw. */
  function play(events: RunEvent[], stream: FakeTerminal, burst = 1) {
    vi.useFakeTimers();
    const reporter = createReporter({ stream, live: stream, env: {} });
    events.forEach((event, index) => {
      reporter.handle(event);
      if ((index + 1) % burst === 0) vi.advanceTimersByTime(150);
    });
    return reporter;
  }

  it('keeps a building and a repairing bar below the lines, with the current attempt and unanswered calls', () => {
    const stream = new FakeTerminal({ tty: true });
    const exitHooks = process.listenerCount('exit');
    const upToSecondAnswer = EVENTS.findIndex((e) => e.type === 'call-started' && e.attempt === 4);
    const reporter = play(EVENTS.slice(0, upToSecondAnswer + 1), stream);
    const screen = renderScreen(stream.text).filter((line) => line !== '');
    // While the cursor is hidden, a process exit that skips close() still shows it again.
    expect(process.listenerCount('exit')).toBe(exitHooks + 1);
    reporter.close();
    expect(process.listenerCount('exit')).toBe(exitHooks);

    expect(screen.slice(-2)).toEqual([
      expect.stringMatching(/^Building +[█░]+ 3\/3 \| failing 2 \| done$/),
      expect.stringMatching(/^Repairing +[█░]+ 0\/2 \| suggestion b: attempt 2 of 6 \| unanswered 1$/),
    ]);
    // Successful builds are counted by the bar instead of printed; everything else is above the bars.
    const expected = plainLines(EVENTS.slice(0, upToSecondAnswer + 1)).filter(
      (line) => !line.endsWith(': builds') || line.startsWith('reference'),
    );
    expect(screen.slice(0, -2)).toEqual(expected);
  });

  it.each([1, 3])(
    'leaves every line whole, the final bars, then the summary, and restores the cursor (%i event(s) per redraw)',
    (burst) => {
      const stream = new FakeTerminal({ tty: true });
      const reporter = play(EVENTS, stream, burst);
      reporter.print(`\n${SUMMARY}`);
      reporter.close();

      const screen = renderScreen(stream.text);
      const barRows = screen.flatMap((line, row) => (BAR_CHARS.test(line) ? [row] : []));
      expect(barRows).toHaveLength(2);
      const [building, repairing] = barRows.map((row) => screen[row]!);
      expect(building).toMatch(/^Building +█+ 3\/3 \| failing 2 \| done$/);
      expect(repairing).toMatch(/^Repairing +█+ 2\/2 \| unanswered 2 \| done$/);
      const expected = plainLines(EVENTS).filter((line) => !line.endsWith(': builds') || line.startsWith('reference'));
      expect(screen.slice(0, barRows[0])).toEqual(expected);
      expect(screen.slice(barRows[1]! + 1).join('\n')).toBe(`\n${SUMMARY}\n`);
      expect(stream.text.lastIndexOf('\x1b[?25h')).toBeGreaterThan(stream.text.lastIndexOf('\x1b[?25l'));
    },
  );

  it('shows every suggestion in flight with its own attempt while several repairs overlap', () => {
    const stream = new FakeTerminal({ tty: true });
    const upToDiscoveryEnd = EVENTS.findIndex((e) => e.type === 'repair-started');
    const call = {
      duration_ms: 5,
      input_tokens: null,
      output_tokens: null,
      cost_usd: null,
      cli_version: null,
      backend: 'scripted',
      model: null,
    };
    const overlapping = stamped([
      { type: 'repair-started', id: 'b', index: 1, total: 2 },
      { type: 'repair-started', id: 'c', index: 2, total: 2 },
      { type: 'call-started', id: 'b', attempt: 1, tier: 'agent', prompt: 1, turn: 0 },
      { type: 'call-started', id: 'c', attempt: 1, tier: 'builtin', prompt: 0, turn: 0 },
      { type: 'call-finished', id: 'b', attempt: 1, tier: 'agent', outcome: 'answered', detail: null, ...call },
      {
        type: 'check',
        id: 'b',
        attempt: 1,
        candidate: null,
        candidates: 1,
        check: 'extraction',
        passed: false,
        reason: 'no diff block',
      },
      { type: 'call-started', id: 'b', attempt: 2, tier: 'agent', prompt: 1, turn: 1 },
    ]);
    const reporter = play([...EVENTS.slice(0, upToDiscoveryEnd), ...overlapping], stream);
    const screen = renderScreen(stream.text).filter((line) => line !== '');
    reporter.close();
    expect(screen.at(-1)).toMatch(
      /^Repairing +[█░]+ 0\/2 \| 2 in flight: b \(attempt 2 of 6\), c \(built-in repairer\) \| unanswered 0$/,
    );
    // Lines of overlapping repairs each name their suggestion.
    expect(screen).toContain('  suggestion b, attempt 1: rejected by extraction: no diff block');
  });

  it('prints notices that come before any bar straight away', () => {
    const stream = new FakeTerminal({ tty: true });
    const reporter = createReporter({ stream, live: stream, env: {} });
    reporter.notice('another run left a stale lock; it was removed');
    reporter.close();
    expect(stream.text).toBe('note: another run left a stale lock; it was removed\n');
  });
});
