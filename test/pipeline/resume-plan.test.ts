// The --resume plan and the events a resumed run carries over (src/pipeline/resume.ts, owned by the
// preflight stage): pure functions, tested on values. test/pipeline/resume.test.ts and the
// fault-injection suite run them end to end.
import { describe, expect, it } from 'vitest';
import {
  carriedEvents,
  planResume,
  projectChange,
  upgradeRunState,
  type CurrentInputs,
} from '../../src/pipeline/resume.js';
import type { RunState, RunStateVersion1 } from '../../src/formats/resume-state.js';
import type { PriorAttempt } from '../../src/formats/outcome.js';
import type { EventInput, RunEvent } from '../../src/formats/events.js';
import type { BuildResult } from '../../src/formats/types.js';
import { suggestionRecord } from '../store/fixtures.js';

const failing: BuildResult = {
  ok: false,
  failedAt: 'compile',
  output: 'error',
  diagnostics: [],
  errorClass: 'other',
  firstError: 'error',
  durationMs: 1,
};

const tree = { src: 'dir', 'src/dot.c': 'file 120 1', 'compile.sh': 'file 40 1' };
const environment = { 'compile.sh': 'c', settings: 's', compilers: 'gcc' };
const inputs: CurrentInputs = { tree, environment, outputs: [] };

function state(finished: RunState['finished']): RunState {
  return {
    version: 2,
    run_id: 'old',
    mode: 'repair',
    tree,
    environment,
    outputs: [],
    builds: { '2': { digest: 'd2', build: failing }, '3': { digest: 'd3', build: failing } },
    finished,
    complete: false,
  };
}

const plan = (previous: RunState, o: { digests: Record<string, string>; written: string[] }) =>
  planResume({
    previous,
    previousDir: '/history/old',
    mode: 'repair',
    inputs,
    digests: new Map(Object.entries(o.digests)),
    writtenByRepair: new Set(o.written),
  });

describe('planResume', () => {
  it('keeps a repaired suggestion while the patch set it wrote is in place', () => {
    const resumed = plan(state({ '2': suggestionRecord('2') }), {
      digests: { '2': 'written-now', '3': 'd3' },
      written: ['2'],
    });
    expect([...resumed.kept.keys()]).toEqual(['2']);
    expect([...resumed.builds.keys()]).toEqual(['3']);
  });

  it('continues a repaired suggestion whose write-back the kill cut short and the next start undid', () => {
    const resumed = plan(state({ '2': suggestionRecord('2') }), { digests: { '2': 'd2', '3': 'd3' }, written: [] });
    expect(resumed.kept.size).toBe(0);
    expect([...resumed.builds.keys()]).toEqual(['2', '3']);
  });

  it('keeps a failed suggestion only while its patch set is unchanged', () => {
    const failed = { ...suggestionRecord('3'), status: 'failed' as const };
    expect([...plan(state({ '3': failed }), { digests: { '2': 'd2', '3': 'd3' }, written: [] }).kept.keys()]).toEqual([
      '3',
    ]);
    const changed = plan(state({ '3': failed }), { digests: { '2': 'd2', '3': 'regenerated' }, written: [] });
    expect(changed.kept.size).toBe(0);
    expect(changed.notice).toMatch(/1 changed patch set\(s\) start afresh/);
  });
});

describe('upgradeRunState: a version-1 state of the release before', () => {
  const v1: RunStateVersion1 = {
    version: 1,
    run_id: 'old',
    mode: 'repair',
    inputs: 'inputs-then',
    builds: {
      '2': { digest: 'v1(inputs-then,set2)', build: failing },
      '3': { digest: 'v1(inputs-then,set3-old)', build: failing },
    },
    finished: { '2': suggestionRecord('2') },
    complete: false,
  };
  const now = (version1: string, mode: 'repair' | 'dry-run' = 'repair') => ({
    inputs,
    mode,
    version1,
    patchSets: new Map([
      ['2', 'set2'],
      ['3', 'set3'],
    ]),
    digests: new Map([
      ['2', 'd2'],
      ['3', 'd3'],
    ]),
    version1Digest: (set: string) => `v1(${version1},${set})`,
  });

  it("is today's form when its one digest is today's: a build stands only when its patch set is the same", () => {
    const upgraded = upgradeRunState(v1, now('inputs-then'));
    expect(upgraded).toEqual({
      state: {
        ...state({ '2': suggestionRecord('2') }),
        builds: {
          '2': { digest: 'd2', build: failing },
          '3': { digest: 'version 1: v1(inputs-then,set3-old)', build: failing },
        },
      },
    });
    const resumed = plan((upgraded as { state: RunState }).state, { digests: { '2': 'd2', '3': 'd3' }, written: [] });
    expect([...resumed.kept.keys()]).toEqual([]);
    expect([...resumed.builds.keys()]).toEqual(['2']);
    expect(resumed.notice).toMatch(/1 changed patch set\(s\) start afresh/);
  });

  it('is not trusted when the digest differs, and says that it cannot name what changed', () => {
    expect(upgradeRunState(v1, now('inputs-today'))).toEqual({
      fresh: expect.stringMatching(
        /^the project changed since run old, or its compiler, compile.sh or settings did \(an earlier release recorded that run, as one digest that cannot name what changed\)/,
      ),
    });
  });

  it('leaves a finished run or one of the other mode to planResume, which says so', () => {
    const finished = upgradeRunState({ ...v1, complete: true }, now('inputs-today'));
    expect(plan((finished as { state: RunState }).state, { digests: {}, written: [] }).notice).toBe(
      '--resume: run old finished; starting afresh',
    );
    expect(upgradeRunState(v1, now('inputs-today', 'dry-run'))).toHaveProperty('state');
    const v2 = state({});
    expect(upgradeRunState(v2, now('whatever'))).toEqual({ state: v2 });
  });
});

describe('projectChange', () => {
  const previous = { tree: { ...tree, 'run.log': 'file 10 1' }, environment, outputs: ['run.log'] };

  it("does not count the files both runs wrote their own output into, nor editors' leftovers", () => {
    const now = {
      tree: {
        ...tree,
        'run.log': 'file 5000 9',
        'resume.log': 'file 20 9',
        'src/dot.c~': 'file 120 2',
        'src/.dot.c.swp': 'file 4096 9',
        'src/#dot.c#': 'file 1 1',
        'src/.#dot.c': 'symlink 20 1 -> me@host',
      },
      environment,
      outputs: ['resume.log'],
    };
    expect(projectChange(previous, now)).toBeNull();
  });

  it('names the first entry that changed, was added or removed, and how many more did', () => {
    expect(projectChange(previous, { ...inputs, tree: { ...previous.tree, 'src/dot.c': 'file 121 2' } })).toBe(
      'src/dot.c changed',
    );
    expect(
      projectChange(previous, {
        ...inputs,
        tree: { ...previous.tree, 'notes.txt': 'file 3 3', 'zeta.txt': 'file 3 3' },
      }),
    ).toBe('notes.txt was added, and 1 more entry');
    const { 'compile.sh': _gone, ...without } = previous.tree;
    expect(projectChange(previous, { ...inputs, tree: without })).toBe('compile.sh was removed');
    // Another run's log is a file like any other: the resuming run did not write it.
    expect(projectChange(previous, { ...inputs, tree: { ...previous.tree, 'other.log': 'file 3 3' } })).toBe(
      'other.log was added',
    );
  });

  it('names what changed besides the tree', () => {
    expect(
      projectChange(previous, { ...inputs, tree: previous.tree, environment: { ...environment, compilers: 'clang' } }),
    ).toBe('compilers changed');
  });

  it('makes planResume start afresh and say which file changed', () => {
    const resumed = planResume({
      previous: state({}),
      previousDir: '/history/old',
      mode: 'repair',
      inputs: { ...inputs, tree: { ...tree, 'src/dot.c': 'file 99 5' } },
      digests: new Map(),
      writtenByRepair: new Set(),
    });
    expect(resumed.from).toBeNull();
    expect(resumed.notice).toBe(
      '--resume: the project changed since run old (src/dot.c changed), so nothing of it is trusted; starting afresh',
    );
  });
});

describe('carriedEvents', () => {
  const events: RunEvent[] = stamp([
    { type: 'run-started', run: null as never },
    { type: 'build-started', id: null, purpose: 'reference' },
    ...(['2', '3', '4'] as const).flatMap((id): EventInput[] => [
      { type: 'build-started', id, purpose: 'discovery' },
      {
        type: 'build-finished',
        id,
        purpose: 'discovery',
        ok: false,
        error_class: 'other',
        first_error: 'error',
        duration_ms: 1,
      },
    ]),
    { type: 'repair-started', id: '2', index: 1, total: 3 },
    ...tryEvents('2', 1),
    { type: 'written', id: '2', files: ['1'], digest: 'w2' },
    { type: 'suggestion-finished', record: suggestionRecord('2') },
    { type: 'repair-started', id: '3', index: 2, total: 3 },
    ...tryEvents('3', 1),
    ...tryEvents('3', 2),
    { type: 'call-started', id: '3', attempt: 3, tier: 'agent', prompt: 1, turn: 2 },
  ]);
  const tries = (outcomes: PriorAttempt['outcome'][]): PriorAttempt[] =>
    outcomes.map((outcome, i) => ({
      attempt: i + 1,
      tier: 'builtin',
      conversation: 0,
      turn: 0,
      source: 'builtin',
      prompt: null,
      answer: 'a',
      outcome,
      rejectedBy: null,
      reason: null,
      runCheck: null,
      raceCheck: null,
      usage: { inputTokens: null, outputTokens: null, costUsd: null },
    }));
  const summary = (carried: RunEvent[]) =>
    carried.map((e) => `${e.type}:${'id' in e ? e.id : ''}${'attempt' in e ? `@${e.attempt}` : ''}`);

  it('carries everything a kept suggestion did but its record, and of a continued one its build and carried tries', () => {
    const carried = carriedEvents(events, {
      kept: new Map([['2', suggestionRecord('2')]]),
      continued: new Map([
        ['3', tries(['rejected', 'pending'])],
        ['4', []],
      ]),
      written: new Map([['2', 'w2']]),
    });
    expect(summary(carried)).toEqual([
      'build-started:2',
      'build-finished:2',
      'build-started:3',
      'build-finished:3',
      'build-started:4',
      'build-finished:4',
      'repair-started:2',
      'call-started:2@1',
      'call-finished:2@1',
      'check:2@1',
      'written:2',
      'call-started:3@1',
      'call-finished:3@1',
      'check:3@1',
      // Try 2 is checked again by the resumed run: its call stays, its checks are made anew.
      'call-started:3@2',
      'call-finished:3@2',
    ]);
  });

  it('says `written` for a kept repair whose write-back the next start completed', () => {
    const cut = events.filter((e) => e.type !== 'written');
    const carried = carriedEvents(cut, {
      kept: new Map([['2', suggestionRecord('2')]]),
      continued: new Map(),
      written: new Map([['2', 'w2']]),
    });
    expect(carried.filter((e) => e.type === 'written')).toEqual([
      { t: expect.any(String), type: 'written', id: '2', files: ['1'], digest: 'w2' },
    ]);
    expect(summary(carried).at(-1)).toBe('written:2');
  });
});

function tryEvents(id: string, attempt: number): EventInput[] {
  return [
    { type: 'call-started', id, attempt, tier: 'builtin', prompt: 1, turn: 0 },
    {
      type: 'call-finished',
      id,
      attempt,
      tier: 'builtin',
      outcome: 'answered',
      detail: null,
      duration_ms: 1,
      input_tokens: null,
      output_tokens: null,
      cost_usd: null,
      cli_version: null,
      backend: 'builtin',
      model: null,
    },
    { type: 'check', id, attempt, candidate: null, candidates: 1, check: 'builds', passed: true, reason: null },
  ];
}

function stamp(inputs: EventInput[]): RunEvent[] {
  return inputs.map((input, i) => ({ t: `2026-12-02T00:00:${String(i).padStart(2, '0')}.000Z`, ...input }) as RunEvent);
}
