// A small run as the stages would emit it: four suggestions, one builds, one has no patch, one is
// repaired by the agent on its second answer after a built-in decline and a timeout, and one gets
// no answer at all.
import type { EventInput, RunEvent } from '../../src/formats/events.js';
import type { RunRecord, SuggestionRecord } from '../../src/formats/results.js';

const run: RunRecord = {
  id: 'run-1',
  started: '2026-01-01T00:00:00.000Z',
  finished: null,
  mode: 'repair',
  dot_discopop: '/p/.discopop',
  config: 'tiny',
  backend: 'claude',
  model: 'sonnet',
  options: { agent: { maxAttempts: 6 } },
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

function record(
  id: string,
  status: SuggestionRecord['status'],
  extra: Partial<SuggestionRecord> = {},
): SuggestionRecord {
  return {
    id,
    status,
    hotspot: 'YES',
    pattern_type: 'do_all',
    files: ['1'],
    changed_files: [],
    attempts: 0,
    unanswered: 0,
    builtin: { tries: 0, accepted: false, declined: null },
    backend: null,
    model: null,
    accepted_attempt: null,
    first_error: null,
    error_class: null,
    reason: null,
    reason_code: null,
    repaired_earlier: false,
    clause_changes: [],
    non_directive_lines_changed: false,
    may_race: [],
    input_tokens: null,
    output_tokens: null,
    cost_usd: null,
    builtin_rule: null,
    written_files: [],
    backup: null,
    diagnostic_count: 0,
    diagnostics: [],
    run_check: null,
    race_check: null,
    ignored_files: [],
    written: status === 'repaired',
    duration_s: 0,
    ...extra,
  };
}

const call = {
  duration_ms: 5,
  input_tokens: null,
  output_tokens: null,
  cost_usd: null,
  cli_version: null,
  backend: 'claude',
  model: 'sonnet',
};
const noCandidates = { candidate: null, candidates: 1 };
const build = { purpose: 'discovery' as const, duration_ms: 10 };

export const SAMPLE_RUN: EventInput[] = [
  { type: 'run-started', run },
  { type: 'notice', level: 'warning', message: 'hotspot data missing: every suggestion is YES' },
  { type: 'discovery-started', suggestions: ['a', 'b', 'c', 'd'], builds: 4, reused: 0, jobs: 2 },
  { type: 'build-started', id: null, purpose: 'reference' },
  {
    type: 'build-finished',
    id: null,
    purpose: 'reference',
    ok: true,
    error_class: null,
    first_error: null,
    duration_ms: 10,
  },
  { type: 'build-finished', id: 'a', ...build, ok: true, error_class: null, first_error: null },
  {
    type: 'build-finished',
    id: 'b',
    ...build,
    ok: false,
    error_class: 'undeclared-in-clause',
    first_error: "x.c:3:1: error: 'acc' undeclared",
  },
  {
    type: 'build-finished',
    id: 'c',
    ...build,
    ok: false,
    error_class: 'early-exit',
    first_error: 'x.c:9:2: error: break statement used with OpenMP for loop',
  },
  { type: 'suggestion-finished', record: record('a', 'ok') },
  {
    type: 'suggestion-finished',
    record: record('d', 'skipped', { files: [], reason: 'no patch', reason_code: 'no-patch' }),
  },
  { type: 'repair-started', id: 'b', index: 1, total: 2 },
  { type: 'call-started', id: 'b', attempt: 1, tier: 'builtin', prompt: 0, turn: 0 },
  {
    type: 'call-finished',
    id: 'b',
    attempt: 1,
    tier: 'builtin',
    outcome: 'declined',
    detail: 'no rule applies',
    ...call,
  },
  { type: 'call-started', id: 'b', attempt: 2, tier: 'agent', prompt: 1, turn: 0 },
  {
    type: 'call-finished',
    id: 'b',
    attempt: 2,
    tier: 'agent',
    outcome: 'timeout',
    detail: 'no answer after 300 s',
    ...call,
  },
  { type: 'call-started', id: 'b', attempt: 3, tier: 'agent', prompt: 1, turn: 0 },
  { type: 'call-finished', id: 'b', attempt: 3, tier: 'agent', outcome: 'answered', detail: null, ...call },
  ...passedUpToBuilds('b', 3),
  {
    type: 'check',
    id: 'b',
    attempt: 3,
    ...noCandidates,
    check: 'builds',
    passed: false,
    reason: "x.c:3:1: error: 'acc' undeclared\nmore",
  },
  { type: 'call-started', id: 'b', attempt: 4, tier: 'agent', prompt: 1, turn: 1 },
  { type: 'call-finished', id: 'b', attempt: 4, tier: 'agent', outcome: 'answered', detail: null, ...call },
  ...passedUpToBuilds('b', 4),
  { type: 'check', id: 'b', attempt: 4, ...noCandidates, check: 'builds', passed: true, reason: null },
  { type: 'written', id: 'b', files: ['1'], digest: 'd1' },
  {
    type: 'suggestion-finished',
    record: record('b', 'repaired', {
      attempts: 3,
      unanswered: 1,
      accepted_attempt: 4,
      error_class: 'undeclared-in-clause',
    }),
  },
  { type: 'repair-started', id: 'c', index: 2, total: 2 },
  { type: 'call-started', id: 'c', attempt: 1, tier: 'agent', prompt: 1, turn: 0 },
  {
    type: 'call-finished',
    id: 'c',
    attempt: 1,
    tier: 'agent',
    outcome: 'unreachable',
    detail: 'connection refused',
    ...call,
  },
  {
    type: 'suggestion-finished',
    record: record('c', 'agent_unreachable', { attempts: 1, unanswered: 1, error_class: 'early-exit' }),
  },
  {
    type: 'run-finished',
    run: {
      ...run,
      finished: '2026-01-01T00:01:00.000Z',
      exit_code: 1,
      counts: { ok: 1, repaired: 1, failed: 0, not_applied: 0, agent_unreachable: 1, skipped: 1 },
    },
  },
];

function passedUpToBuilds(id: string, attempt: number): EventInput[] {
  const checks = ['extraction', 'dry-run-apply', 'apply', 'canonicalize', 'directives-kept'] as const;
  return checks.map((check) => ({ type: 'check', id, attempt, ...noCandidates, check, passed: true, reason: null }));
}

export function stamped(events: EventInput[]): RunEvent[] {
  return events.map(
    (event, index) => ({ t: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(), ...event }) as RunEvent,
  );
}
