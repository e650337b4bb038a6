// results.json on disk, format 2: DiscoPoP's shape (`suggestions` an object keyed by suggestion
// id, each record with the fields and types of DiscoPoP's `SuggestionRecord`, results.py at
// 53a01f2) with patch-repair's own fields beside them, and the run-level `run` and `version`
// beside `suggestions`. DiscoPoP's Patch Repair tab reads this file; where the two tools meet on
// disk DiscoPoP's contract wins. Readers also take format 1 (a `suggestions` array) and the file
// DiscoPoP's own tool writes.
import { z } from 'zod';
import { compareIds } from './types.js';
import { zodProblems } from './zod-problems.js';
import {
  RunRecordSchema,
  RunResultsSchema,
  SuggestionRecordObject,
  SUGGESTION_STATUSES,
  type RunResults,
  type RunRecord,
  type SuggestionRecord,
} from './results.js';

export const RESULTS_FORMAT_VERSION = 2;

export const HOTSPOT_TYPES = ['yes', 'maybe', 'no', 'unknown'] as const;

/** The fields DiscoPoP's tool writes for a suggestion; its tab and scripts read these names and types. */
const discopopFieldShape = {
  suggestion_id: z
    .number()
    .int()
    .nullable()
    .describe(
      'DiscoPoP: the suggestion id as an integer; null when the folder name is not a decimal integer (id keeps it)',
    ),
  hotspot_type: z
    .enum(HOTSPOT_TYPES)
    .describe('DiscoPoP: the hotspot type in lower case; unknown when the hotspot data does not classify it'),
  status: z.enum(SUGGESTION_STATUSES),
  files: z
    .array(z.number().int())
    .describe('DiscoPoP: file ids of the patch set; [] for ok and not_applied, as DiscoPoP records them'),
  changed_files: z.array(z.number().int()).describe('DiscoPoP: file ids a repair changed'),
  attempts: z
    .number()
    .int()
    .nonnegative()
    .describe('DiscoPoP: agent calls made, answered and unanswered (one folder each under attempts/<id>/)'),
  unanswered: z.number().int().nonnegative().describe('DiscoPoP: calls that never produced an answer'),
  accepted_attempt: z
    .number()
    .int()
    .positive()
    .nullable()
    .describe('DiscoPoP: the call number (attempts/<id>/<n>/) of the accepted repair; null when none was accepted'),
  backend: z.string().nullable(),
  model: z.string().nullable(),
  first_error: z.string().describe('DiscoPoP: the first error of the generated build in one line; "" when none'),
  duration_s: z.number().nonnegative().describe('DiscoPoP: wall time spent on the suggestion, in seconds'),
};

/** patch-repair's fields of a record, as results.schema.json names them beside DiscoPoP's. */
export const StoredSuggestionSchema = SuggestionRecordObject.extend({
  ...discopopFieldShape,
  patch_set: z
    .array(z.string())
    .describe('file ids of the patch set as patch-repair read it (files is [] for ok and not_applied, as in DiscoPoP)'),
  written: z.boolean(),
}).describe("one considered suggestion: DiscoPoP's fields, then patch-repair's");
export type StoredSuggestion = z.infer<typeof StoredSuggestionSchema>;

export const ResultsFileSchema = z.object({
  version: z.literal(RESULTS_FORMAT_VERSION).describe("2: suggestions keyed by id in DiscoPoP's shape (1: an array)"),
  run: RunRecordSchema,
  suggestions: z
    .record(z.string(), StoredSuggestionSchema)
    .describe('keyed by suggestion id (the folder name under patch_generator/)'),
});
export type ResultsFile = z.infer<typeof ResultsFileSchema>;

function fileIdNumbers(ids: readonly string[]): number[] {
  return ids.map(Number);
}

function storedRecord(record: SuggestionRecord): StoredSuggestion {
  // DiscoPoP records no file list for a suggestion that built as generated or whose patches never applied.
  const listsFiles = record.status !== 'ok' && record.status !== 'not_applied';
  return {
    ...record,
    suggestion_id: /^\d+$/.test(record.id) ? Number(record.id) : null,
    hotspot_type:
      record.hotspot === null ? 'unknown' : (record.hotspot.toLowerCase() as StoredSuggestion['hotspot_type']),
    files: listsFiles ? fileIdNumbers(record.files) : [],
    changed_files: fileIdNumbers(record.changed_files),
    first_error: record.first_error ?? '',
    patch_set: record.files,
  };
}

/** A record's DiscoPoP fields alone, as its `suggestion` progress event carries them. */
export function discopopFields(record: SuggestionRecord): Pick<StoredSuggestion, keyof typeof discopopFieldShape> {
  const stored = storedRecord(record);
  return Object.fromEntries(
    Object.keys(discopopFieldShape).map((key) => [key, stored[key as keyof StoredSuggestion]]),
  ) as Pick<StoredSuggestion, keyof typeof discopopFieldShape>;
}

/** The document written to results.json: every key sorted, as DiscoPoP's writer does. */
export function resultsDocument(results: RunResults): ResultsFile {
  const suggestions: Record<string, StoredSuggestion> = {};
  for (const record of results.suggestions) suggestions[record.id] = storedRecord(record);
  return ResultsFileSchema.parse({ version: RESULTS_FORMAT_VERSION, run: results.run, suggestions });
}

/** JSON with the keys of every object in sorted order (Python's sort_keys), indented. */
export function sortedJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v: unknown) =>
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : v,
    2,
  );
}

function memoryRecord(stored: StoredSuggestion): SuggestionRecord {
  const { suggestion_id: _id, hotspot_type: _hotspot, patch_set, ...rest } = stored;
  return {
    ...rest,
    files: patch_set,
    changed_files: stored.changed_files.map(String),
    first_error: stored.first_error === '' ? null : stored.first_error,
  };
}

/** A record as DiscoPoP's tool writes it (results.py `SuggestionRecord`); extra keys are tolerated. */
const DiscopopRecordSchema = z.object({
  suggestion_id: z.union([z.number().int(), z.string()]),
  hotspot_type: z.string().nullable().optional(),
  status: z.enum(SUGGESTION_STATUSES),
  files: z.array(z.union([z.number().int(), z.string()])).default([]),
  changed_files: z.array(z.union([z.number().int(), z.string()])).default([]),
  attempts: z.number().int().nonnegative().default(0),
  unanswered: z.number().int().nonnegative().default(0),
  accepted_attempt: z.number().int().nullable().default(null),
  backend: z.string().nullable().default(null),
  model: z.string().nullable().default(null),
  first_error: z.string().nullable().default(''),
  duration_s: z.number().nonnegative().default(0),
});

const DiscopopFileSchema = z.object({ suggestions: z.record(z.string(), DiscopopRecordSchema) });

function fromDiscopopRecord(key: string, r: z.infer<typeof DiscopopRecordSchema>): SuggestionRecord {
  const hotspot = (r.hotspot_type ?? '').toUpperCase();
  return SuggestionRecordObject.parse({
    id: key,
    status: r.status,
    // DiscoPoP writes a repaired record once the patch is in place; its dry run cannot be told apart.
    written: r.status === 'repaired',
    hotspot: hotspot === 'YES' || hotspot === 'NO' || hotspot === 'MAYBE' ? hotspot : null,
    pattern_type: null,
    files: r.files.map(String),
    changed_files: r.changed_files.map(String),
    attempts: r.attempts,
    unanswered: r.unanswered,
    builtin: { tries: 0, accepted: false, declined: null },
    backend: r.backend,
    model: r.model,
    accepted_attempt: r.accepted_attempt !== null && r.accepted_attempt > 0 ? r.accepted_attempt : null,
    first_error: r.first_error ? r.first_error : null,
    error_class: null,
    reason: null,
    repaired_earlier: false,
    clause_changes: [],
    non_directive_lines_changed: false,
    duration_s: r.duration_s,
  });
}

/** What DiscoPoP's progress.jsonl says of its run, when there is one beside its results.json. */
export interface DiscopopRunFacts {
  startedAt: string;
  dryRun: boolean | null;
  backend: string | null;
  model: string | null;
  finished: boolean;
}

/** The run record of a results.json DiscoPoP's tool wrote: it has none, so one is inferred. */
function discopopRun(suggestions: SuggestionRecord[], facts: DiscopopRunFacts & { dotDir: string }): RunRecord {
  const counts = Object.fromEntries(
    SUGGESTION_STATUSES.map((s) => [s, suggestions.filter((r) => r.status === s).length]),
  );
  const agent = suggestions.find((r) => r.backend !== null && r.backend !== 'builtin');
  return RunRecordSchema.parse({
    id: `discopop-${facts.startedAt.replace(/[^0-9T]/g, '').slice(0, 15)}`,
    started: facts.startedAt,
    finished: facts.finished ? facts.startedAt : null,
    mode: facts.dryRun ? 'dry-run' : 'repair',
    dot_discopop: facts.dotDir,
    config: '',
    backend: facts.backend ?? agent?.backend ?? null,
    model: facts.model ?? agent?.model ?? null,
    options: {},
    counts,
    endpoint_down: false,
    cost_usd: null,
    exit_code: null,
    written_by: 'discopop_patch_repair',
  });
}

export type ParsedResults =
  | { ok: true; results: RunResults; writtenBy: 'patch-repair' | 'discopop_patch_repair' }
  | { ok: false; problem: string };

/**
 * Any results.json either tool wrote, as the in-memory results: format 2, format 1, or DiscoPoP's
 * own (recognised by having no `version`). `facts` fills in the run DiscoPoP's file does not record.
 */
export function parseResultsDocument(
  value: unknown,
  facts: DiscopopRunFacts & { dotDir: string },
  file = 'results.json',
): ParsedResults {
  const version = typeof value === 'object' && value !== null ? (value as { version?: unknown }).version : undefined;
  if (version === RESULTS_FORMAT_VERSION) {
    const parsed = ResultsFileSchema.safeParse(value);
    if (!parsed.success) return { ok: false, problem: problemOf(file, parsed.error) };
    const suggestions = Object.values(parsed.data.suggestions)
      .map(memoryRecord)
      .sort((a, b) => compareIds(a.id, b.id));
    return { ok: true, results: { version: 1, run: parsed.data.run, suggestions }, writtenBy: 'patch-repair' };
  }
  if (version === 1) {
    const parsed = RunResultsSchema.safeParse(value);
    return parsed.success
      ? { ok: true, results: parsed.data, writtenBy: 'patch-repair' }
      : { ok: false, problem: problemOf(file, parsed.error) };
  }
  if (version !== undefined)
    return {
      ok: false,
      problem: `${file}: version: ${JSON.stringify(version)} is not a results.json format this patch-repair reads (1 or 2)`,
    };
  const parsed = DiscopopFileSchema.safeParse(value);
  if (!parsed.success) return { ok: false, problem: problemOf(file, parsed.error) };
  const suggestions = Object.entries(parsed.data.suggestions)
    .map(([key, record]) => fromDiscopopRecord(key, record))
    .sort((a, b) => compareIds(a.id, b.id));
  return {
    ok: true,
    results: { version: 1, run: discopopRun(suggestions, facts), suggestions },
    writtenBy: 'discopop_patch_repair',
  };
}

function problemOf(file: string, error: z.ZodError): string {
  return zodProblems(file, error).join('\n');
}

/** A results.json value as the in-memory results; throws on one neither tool could have written. */
export function resultsOf(value: unknown): RunResults {
  const parsed = parseResultsDocument(value, {
    dotDir: '',
    startedAt: new Date(0).toISOString(),
    dryRun: null,
    backend: null,
    model: null,
    finished: true,
  });
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.results;
}
