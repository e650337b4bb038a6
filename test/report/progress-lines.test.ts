// --progress-lines as DiscoPoP's tab reads them: events of a run folded into DiscoPoP's
// @@PR_PROGRESS lines, split with DiscoPoP's own rule (test/helpers/discopop-readers.ts): the
// call number and turn of every try, DiscoPoP's gate names, the detail cut at 2000 characters.
import { expect, it } from 'vitest';
import type { EventInput } from '../../src/formats/events.js';
import { ProgressLines } from '../../src/report/progress-lines.js';
import { suggestionRecord } from '../store/fixtures.js';
import {
  PROGRESS_MARK,
  discopopOwnSplitter,
  eventsInLine,
  progressEvents,
  splitLines,
} from '../helpers/discopop-readers.js';
import { stamped } from './events.js';

const call = {
  duration_ms: 5,
  input_tokens: null,
  output_tokens: null,
  cost_usd: null,
  cli_version: null,
  backend: 'claude',
  model: 'sonnet',
};
const one = { candidate: null, candidates: 1 };
const build = (ok: boolean, failedAt?: 'patch' | 'compile') => ({
  ok,
  ...(failedAt && { failedAt }),
  output: '',
  diagnostics: [],
  durationMs: 10,
});
const long = 'x'.repeat(2500);

const EVENTS: EventInput[] = [
  { type: 'run-started', run: { ...suggestionRunRecord(), mode: 'repair' } },
  { type: 'agent-picked', message: null, backend: 'claude', model: 'sonnet' },
  { type: 'discovery-started', suggestions: ['10', '2', '3'], builds: 3, reused: 0, jobs: 2 },
  { type: 'discovered', id: '3', digest: null, reused: false, build: build(false, 'patch') },
  { type: 'discovered', id: '10', digest: null, reused: false, build: build(true) },
  { type: 'discovered', id: '2', digest: null, reused: false, build: build(false, 'compile') },
  {
    type: 'suggestion-finished',
    record: { ...suggestionRecord('10'), status: 'ok', written: false, changed_files: [], accepted_attempt: null },
  },
  { type: 'repair-started', id: '2', index: 1, total: 2 },
  { type: 'call-started', id: '2', attempt: 1, tier: 'builtin', prompt: 0, turn: 0 },
  {
    type: 'call-finished',
    id: '2',
    attempt: 1,
    tier: 'builtin',
    outcome: 'declined',
    detail: 'no rule applies',
    ...call,
  },
  { type: 'call-started', id: '2', attempt: 2, tier: 'agent', prompt: 1, turn: 0, template: 'rung-1' },
  {
    type: 'call-finished',
    id: '2',
    attempt: 2,
    tier: 'agent',
    outcome: 'timeout',
    detail: 'no answer after 300 s',
    ...call,
  },
  { type: 'call-started', id: '2', attempt: 3, tier: 'agent', prompt: 1, turn: 0, template: 'rung-1' },
  { type: 'call-finished', id: '2', attempt: 3, tier: 'agent', outcome: 'answered', detail: null, ...call },
  { type: 'check', id: '2', attempt: 3, ...one, check: 'extraction', passed: true, reason: null },
  { type: 'check', id: '2', attempt: 3, ...one, check: 'directives-kept', passed: false, reason: long },
  { type: 'call-started', id: '2', attempt: 4, tier: 'agent', prompt: 1, turn: 1, template: 'follow-up' },
  { type: 'call-finished', id: '2', attempt: 4, tier: 'agent', outcome: 'answered', detail: null, ...call },
  { type: 'check', id: '2', attempt: 4, ...one, check: 'builds', passed: true, reason: null },
  {
    type: 'suggestion-finished',
    record: { ...suggestionRecord('2'), attempts: 3, unanswered: 1, accepted_attempt: 4, backend: 'claude' },
  },
  { type: 'repair-started', id: '3', index: 2, total: 2 },
  { type: 'call-started', id: '3', attempt: 1, tier: 'agent', prompt: 1, turn: 0, template: 'rung-1' },
  { type: 'call-finished', id: '3', attempt: 1, tier: 'agent', outcome: 'answered', detail: null, ...call },
  { type: 'check', id: '3', attempt: 1, ...one, check: 'builds', passed: false, reason: 'It still does not compile' },
  {
    type: 'suggestion-finished',
    record: {
      ...suggestionRecord('3'),
      status: 'not_applied',
      written: false,
      attempts: 1,
      accepted_attempt: null,
      changed_files: [],
      hotspot: null,
      first_error: null,
    },
  },
  {
    type: 'run-finished',
    run: {
      ...suggestionRunRecord(),
      counts: { ok: 1, repaired: 1, failed: 0, not_applied: 1, agent_unreachable: 0, skipped: 0 },
    },
  },
];

function suggestionRunRecord() {
  return {
    id: 'r',
    started: '2026-01-01T00:00:00.000Z',
    finished: null,
    mode: 'repair' as const,
    dot_discopop: '/x/.discopop',
    config: 'tiny',
    backend: null,
    model: null,
    options: {},
    counts: { ok: 0, repaired: 0, failed: 0, not_applied: 0, agent_unreachable: 0, skipped: 0 },
    endpoint_down: false,
    cost_usd: null,
    input_tokens: null,
    output_tokens: null,
    funnel: [],
    exit_code: null,
    openmp_probe: null,
    not_considered: [],
    run_reference: null,
  };
}

function linesOf(events: EventInput[]): string[] {
  const lines: string[] = [];
  const progress = new ProgressLines((line) => lines.push(line));
  for (const event of stamped(events)) progress.apply(event);
  return lines;
}

it("prints DiscoPoP's events, one prefixed JSON object with sorted keys a line, ids as integers", () => {
  const lines = linesOf(EVENTS);
  for (const line of lines) {
    expect(line.startsWith(PROGRESS_MARK)).toBe(true);
    expect(line).not.toContain('\n');
    const value = JSON.parse(line.slice(PROGRESS_MARK.length)) as object;
    expect(Object.keys(value)).toEqual(Object.keys(value).sort());
  }
  const events = progressEvents(lines.map((line) => `${line}\n`).join(''));
  expect(events).toHaveLength(lines.length);
  expect(events[0]).toEqual({
    event: 'start',
    candidates: [2, 3, 10],
    candidate_count: 3,
    backend: 'claude',
    model: 'sonnet',
    dry_run: false,
  });
  expect(events[1]).toEqual({
    event: 'discovery',
    built: [10],
    failing: [2, 3],
    not_applied: [3],
    reference_built: true,
  });
  expect(events.filter((e) => e.event === 'attempt')).toEqual([
    {
      event: 'attempt',
      suggestion: 2,
      attempt: 1,
      turn: 0,
      template: 'builtin',
      outcome: 'agent',
      detail: 'no rule applies',
    },
    {
      event: 'attempt',
      suggestion: 2,
      attempt: 2,
      turn: 0,
      template: 'rung-1',
      outcome: 'agent',
      detail: 'no answer after 300 s',
    },
    {
      event: 'attempt',
      suggestion: 2,
      attempt: 3,
      turn: 0,
      template: 'rung-1',
      outcome: 'pragmas',
      detail: 'x'.repeat(2000),
    },
    { event: 'attempt', suggestion: 2, attempt: 4, turn: 1, template: 'follow-up', outcome: 'accepted', detail: '' },
    {
      event: 'attempt',
      suggestion: 3,
      attempt: 1,
      turn: 0,
      template: 'rung-1',
      outcome: 'compile',
      detail: 'It still does not compile',
    },
  ]);
  expect(
    events
      .filter((e) => e.event === 'suggestion')
      .map((e) => [e.suggestion_id, e.status, e.files, e.hotspot_type, e.first_error]),
  ).toEqual([
    [10, 'ok', [], 'yes', "main.c:11:40: error: 'sum' not specified in enclosing 'parallel'"],
    [2, 'repaired', [1], 'yes', "main.c:11:40: error: 'sum' not specified in enclosing 'parallel'"],
    [3, 'not_applied', [], 'unknown', ''],
  ]);
  expect(events.at(-1)).toMatchObject({ event: 'done', repaired: 1, failed: 1, unreachable: 0, considered: 3 });
});

it("DiscoPoP's splitter finds a line even when other output shares it, and echoes the rest", () => {
  const [line] = linesOf(EVENTS);
  const { events, residual } = eventsInLine(`  42%|##  |${line}\n`);
  expect(events).toHaveLength(1);
  expect(residual).toBe('  42%|##  |\n');
});

it('reports the furthest check that rejected a try when its blocks are rejected at different checks, the race check last', () => {
  const two = { candidate: null, candidates: 2 };
  const lines = linesOf([
    { type: 'run-started', run: { ...suggestionRunRecord(), mode: 'repair' } },
    { type: 'discovery-started', suggestions: ['2'], builds: 1, reused: 0, jobs: 1 },
    { type: 'discovered', id: '2', digest: null, reused: false, build: build(false, 'compile') },
    { type: 'repair-started', id: '2', index: 1, total: 1 },
    { type: 'call-started', id: '2', attempt: 1, tier: 'agent', prompt: 1, turn: 0, template: 'rung-1' },
    { type: 'call-finished', id: '2', attempt: 1, tier: 'agent', outcome: 'answered', detail: null, ...call },
    { type: 'check', id: '2', attempt: 1, ...two, check: 'races', passed: false, reason: 'races at main.c:11 (t)' },
    { type: 'check', id: '2', attempt: 1, ...two, check: 'builds', passed: false, reason: 'It still does not compile' },
    {
      type: 'suggestion-finished',
      record: { ...suggestionRecord('2'), status: 'failed', written: false, attempts: 1, accepted_attempt: null },
    },
  ]);
  const attempts = progressEvents(lines.map((line) => `${line}\n`).join('')).filter((e) => e.event === 'attempt');
  expect(attempts).toEqual([
    {
      event: 'attempt',
      suggestion: 2,
      attempt: 1,
      turn: 0,
      template: 'rung-1',
      outcome: 'races',
      detail: 'races at main.c:11 (t)',
    },
  ]);
});

const DISCOPOP_SRC = process.env.DISCOPOP_SRC || undefined;

it.skipIf(DISCOPOP_SRC === undefined)(
  "the model of DiscoPoP's splitter reads every line as DiscoPoP's own does (set DISCOPOP_SRC to a DiscoPoP checkout to run)",
  () => {
    const [first, second] = linesOf(EVENTS);
    const lines = [
      ...splitLines(
        linesOf(EVENTS)
          .map((line) => `${line}\n`)
          .join(''),
      ),
      `  42%|##  |${first}\r`,
      `${first}${second}\n`,
      `${first} and then some text\n`,
      `${PROGRESS_MARK}not json ${first}\n`,
      `${PROGRESS_MARK}[1, 2]\n`,
      `${PROGRESS_MARK}   {"event": "x", "text": "a } in a string"} tail\n`,
      'no events here\n',
      `${PROGRESS_MARK}{"unclosed": \n`,
    ];
    const theirs = discopopOwnSplitter(DISCOPOP_SRC!)(lines);
    expect(lines.map((line) => Object.values(eventsInLine(line)))).toEqual(theirs);
  },
);
