// Every type that is also stored is z.infer of its one schema (design.md, Formats): a value the
// stages hand each other, written to disk and read back, is the same value. Each sample sets every
// field its schema knows, optional ones included, so a field the schema does not carry (as
// run-state.json once dropped a diagnostic's failsBuild) fails here, and so does a new field that
// no sample exercises.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BuildResultSchema, type BuildResult } from '../../src/formats/build-result.js';
import {
  AnsweredCallSchema,
  RunStateSchema,
  type AnsweredCall,
  type RunState,
} from '../../src/formats/resume-state.js';
import type { RunResults } from '../../src/formats/results.js';
import { ResultsFileSchema, resultsDocument, resultsOf, sortedJson } from '../../src/formats/results-document.js';
import { VerdictFileSchema, type VerdictFile } from '../../src/formats/verdict.js';
import { runRecord, suggestionRecord } from '../store/fixtures.js';

const build: BuildResult = {
  ok: false,
  failedAt: 'compile',
  output: "src/stencil.c:9:1: warning: extra tokens at the end of '#pragma omp task' are ignored",
  diagnostics: [
    {
      file: 'src/stencil.c',
      fileId: '2',
      line: 9,
      column: 1,
      severity: 'warning',
      message: "extra tokens at the end of '#pragma omp task' are ignored",
      errorClass: 'unknown-clause',
      notes: [{ file: 'src/stencil.c', fileId: '2', line: 8, column: 3, message: 'expanded from here' }],
      failsBuild: true,
    },
  ],
  errorClass: 'unknown-clause',
  firstError: "src/stencil.c:9:1: warning: extra tokens at the end of '#pragma omp task' are ignored",
  durationMs: 812,
};

const results: RunResults = {
  version: 1,
  run: {
    ...runRecord('20261130T140000-abcdef'),
    resumed_from: '20261130T130000-123456',
    written_by: 'patch-repair',
    openmp_probe: {
      status: 'rejected',
      file: 'src/stencil.c',
      line: 9,
      directive: '#pragma omp parallel for probe_clause',
      detail: 'error: unexpected clause',
      duration_ms: 300,
    },
    workspaces: {
      count: 2,
      reference_outputs: 'copied',
      reference_builds: 1,
      path_files: ['build/cmake_install.cmake'],
      path_file_count: 1,
    },
  },
  suggestions: [
    {
      ...suggestionRecord('6'),
      clause_changes: [
        {
          file: '2',
          directive: '#pragma omp task depends(out:a)',
          kind: 'clause-renamed',
          clause: 'depends',
          variable: 'a',
          from: 'depends',
          to: 'depend',
        },
      ],
      may_race: [
        {
          file: '2',
          directive: '#pragma omp parallel for private(b)',
          kind: 'variable-moved',
          clause: 'private',
          variable: 'b',
          from: 'private',
          to: 'shared',
        },
      ],
    },
  ],
};

const runState: RunState = {
  version: 2,
  run_id: '20261130T140000-abcdef',
  mode: 'repair',
  tree: { src: 'dir', 'src/stencil.c': 'file 812 1764590400000000000' },
  environment: { 'compile.sh': 'sha256:compile', settings: 'sha256:settings' },
  outputs: ['run.log'],
  builds: { '6': { digest: 'sha256:six', build } },
  finished: { '6': results.suggestions[0]! },
  complete: false,
};

const answeredCall: AnsweredCall = {
  version: 1,
  id: '6',
  attempt: 2,
  tier: 'agent',
  prompt: 1,
  turn: 1,
  source: 'follow-up',
  cost_usd: 0.01,
  input_tokens: 1200,
  output_tokens: 300,
};

const verdict: VerdictFile = {
  version: 1,
  run_check: null,
  race_check: null,
  id: '6',
  attempt: 2,
  tier: 'agent',
  prompt: 1,
  turn: 1,
  source: 'follow-up',
  call_outcome: 'answered',
  call_detail: null,
  outcome: 'rejected',
  rejected_by: 'builds',
  reason: 'the build fails',
  checks: [{ check: 'builds', passed: false, reason: 'the build fails' }],
  apply_report: {
    basis: 'unpatched',
    files: [
      { file: '2', applied: true, hunks: [{ hunk: 1, applied: true, line: 9, offset: 0, fuzz: 0, reason: null }] },
    ],
  },
  clause_changes: [],
  non_directive_lines_changed: false,
  usage: { duration_ms: 1000, input_tokens: 1200, output_tokens: 300, cost_usd: 0.01, cli_version: '1.0.0' },
  candidates: [
    {
      candidate: 1,
      blocks: [1],
      reading: 'diff',
      accepted: false,
      rejected_by: 'builds',
      reason: 'the build fails',
      checks: [{ check: 'builds', passed: false, reason: 'the build fails' }],
    },
  ],
};

const STORED: { name: string; schema: z.ZodType; value: unknown }[] = [
  { name: 'BuildResult (run-state.json builds)', schema: BuildResultSchema, value: build },
  { name: 'run-state.json', schema: RunStateSchema, value: runState },
  { name: 'attempts/<id>/<n>/call.json', schema: AnsweredCallSchema, value: answeredCall },
  { name: 'attempts/<id>/<n>/verdict.json', schema: VerdictFileSchema, value: verdict },
  { name: 'results.json', schema: ResultsFileSchema, value: resultsDocument(results) },
];

it("results.json comes back from its file, in DiscoPoP's shape on disk, as the in-memory results that were written", () => {
  expect(resultsOf(JSON.parse(sortedJson(resultsDocument(results))))).toEqual(results);
});

describe.each(STORED)('$name', ({ schema, value }) => {
  it('comes back from its file as the value that was written', () => {
    expect(schema.parse(JSON.parse(JSON.stringify(value)))).toEqual(value);
  });

  it('sample sets every field its schema knows', () => {
    expect(unsetFields(schema, value, '')).toEqual([]);
  });
});

/** Object fields of `schema` that `value` leaves out, as paths; unions are matched to the option the value fits best. */
function unsetFields(schema: z.ZodType, value: unknown, at: string): string[] {
  const def = (schema as { def: { type: string } }).def as {
    type: string;
    innerType?: z.ZodType;
    element?: z.ZodType;
    valueType?: z.ZodType;
    options?: z.ZodType[];
    out?: z.ZodType;
  };
  if (value === null || value === undefined) return [];
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
      return unsetFields(def.innerType!, value, at);
    case 'pipe':
      return unsetFields(def.out!, value, at);
    case 'array':
      return (value as unknown[]).flatMap((item, i) => unsetFields(def.element!, item, `${at}[${i}]`));
    case 'record':
      return Object.entries(value as object).flatMap(([key, item]) =>
        unsetFields(def.valueType!, item, `${at}.${key}`),
      );
    case 'union': {
      const candidates = def
        .options!.filter((option) => option.safeParse(value).success)
        .map((option) => unsetFields(option, value, at));
      return candidates.sort((a, b) => a.length - b.length)[0] ?? [];
    }
    case 'object': {
      const shape = (schema as z.ZodObject).shape as Record<string, z.ZodType>;
      const record = value as Record<string, unknown>;
      return Object.entries(shape).flatMap(([key, field]) =>
        key in record ? unsetFields(field, record[key], `${at}.${key}`) : [`${at}.${key}`],
      );
    }
    default:
      return [];
  }
}
