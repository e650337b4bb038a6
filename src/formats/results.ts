// results.json: one record per considered suggestion. Other tools (a GUI, scripts, CI) read these
// names, so they are snake_case and stable.
import { z } from 'zod';
import { ERROR_CLASSES, HOTNESS } from './types.js';

export const SUGGESTION_STATUSES = ['ok', 'repaired', 'failed', 'not_applied', 'agent_unreachable', 'skipped'] as const;
export type SuggestionStatus = (typeof SUGGESTION_STATUSES)[number];

/**
 * Why a suggestion was not repaired, as a value the run decides by (exit code, whether --resume
 * keeps the record); `reason` holds the words shown beside it.
 */
export const REASON_CODES = [
  'no-patch',
  'max-repairs',
  'interrupted',
  'refused',
  'cluster-failed',
  'fatal-agent',
  'cost-limit',
  'endpoint-down',
  'agent-unreachable',
  'not-verified',
  'not-openmp',
  'no-repairer',
  'write-failed',
  'writes-stopped',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

export const ClauseChangeSchema = z.object({
  file: z.string().describe('file id of the directive'),
  directive: z.string().describe('the generated directive line, trimmed'),
  kind: z.enum([
    'clause-added',
    'clause-removed',
    'clause-renamed',
    'variable-added',
    'variable-removed',
    'variable-moved',
    'directive-moved',
  ]),
  clause: z.string().optional(),
  variable: z.string().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
});
export type ClauseChange = z.infer<typeof ClauseChangeSchema>;

/** The diagnostics a reviewer reads first: the start of those that failed the generated build. */
export const RECORDED_DIAGNOSTICS = 3;

export const RecordedDiagnosticSchema = z.object({
  file: z
    .string()
    .describe(
      'project-relative path as the compiler named it, or the file id when patch failed on a file outside the project',
    ),
  file_id: z.string().nullable().describe('FileMapping id, when it is a project file'),
  line: z.number().int().positive().nullable(),
  column: z.number().int().positive().nullable(),
  severity: z
    .enum(['error', 'warning', 'note', 'fatal error'])
    .describe('warning: the compiler ignored (part of) a directive the patch set added, which fails the build'),
  message: z.string(),
  error_class: z.enum(ERROR_CLASSES),
});
export type RecordedDiagnostic = z.infer<typeof RecordedDiagnosticSchema>;

export const RUN_VERDICTS = ['same', 'differs', 'crashed', 'timeout', 'invalid', 'not-run'] as const;

export const ValidationTallySchema = z
  .object({
    runs: z.number().int().nonnegative().describe('validate.sh runs: one after each execute.sh run that exited 0'),
    passed: z
      .boolean()
      .describe('every one of them exited 0 (and its build, when compile_validate.sh makes one, passed)'),
    built_by: z
      .enum(['compile_validate.sh', 'compile.sh'])
      .describe(
        "which build validate.sh checked: compile_validate.sh's own, or compile.sh's when the configuration has no compile_validate.sh",
      ),
    seconds: z
      .number()
      .nonnegative()
      .describe('wall time of the validation steps (compile_validate.sh and validate.sh), summed over the runs'),
  })
  .describe("the configuration's validate.sh, run after execute.sh (DiscoPoP's output validation)");
export type ValidationTally = z.infer<typeof ValidationTallySchema>;

export const RunCheckSchema = z
  .object({
    threads: z.number().int().positive().describe('OMP_NUM_THREADS of the N-thread runs'),
    repeats: z.number().int().positive().describe('runs at that many threads'),
    verdict: z
      .enum(RUN_VERDICTS)
      .describe(
        'same: every run exits and prints like the sequential build (and validate.sh, when there is one, exits 0); differs: an exit code or output line differs; crashed: a run was killed by a signal; timeout: a run went over --run-timeout; invalid: validate.sh (or compile_validate.sh before it) failed after a run; not-run: nothing of this suggestion was run',
      ),
    first_difference: z
      .string()
      .nullable()
      .describe('which run differed first and how, e.g. "at 4 threads, run 2 of 3: line 12 `…` expected, `…` got"'),
    validate: ValidationTallySchema.nullable()
      .default(null)
      .describe('null when the configuration has no validate.sh or no run reached it'),
  })
  .describe(
    'check 7 (--check-run): the repaired build, or with --check-run all the generated one, run with execute.sh at 1 and N threads',
  );
export type RunCheck = z.infer<typeof RunCheckSchema>;

export const RACE_VERDICTS = ['clean', 'races', 'races_elsewhere', 'not-run'] as const;

const RaceAccessSchema = z.object({
  kind: z
    .enum(['read', 'write'])
    .describe("TSan's `Read of size`/`Write of size` (atomic accesses are reported as their kind)"),
  size: z.number().int().nonnegative(),
  location: z
    .string()
    .nullable()
    .describe(
      'file:line:column of the access, project-relative when it is in the project; null when TSan had no source line',
    ),
  function: z.string().nullable(),
});

export const RaceReportSchema = z.object({
  first: RaceAccessSchema.describe('the access TSan caught'),
  previous: RaceAccessSchema.describe('the earlier access it races with'),
  variable: z
    .string()
    .nullable()
    .describe('the variable where TSan names it (a global); null for a stack or heap location'),
  in_patch: z
    .boolean()
    .describe(
      "a frame of either access reaches a line the suggestion's patch set adds or changes (its directive opens the parallel region)",
    ),
});
export type RaceReport = z.infer<typeof RaceReportSchema>;

export const RaceCheckSchema = z
  .object({
    threads: z.number().int().positive().describe('OMP_NUM_THREADS of the run'),
    verdict: z
      .enum(RACE_VERDICTS)
      .describe(
        "clean: no report beyond the reference's; races: a report reaches a line of the patch set (the candidate is rejected); races_elsewhere: reports only outside it (evidence); not-run: the race build failed or did not run",
      ),
    reports: z
      .array(RaceReportSchema)
      .describe("ThreadSanitizer's data-race reports, the reference's own races left out"),
    seconds: z.number().nonnegative().describe('wall time of the race build and run'),
    detail: z.string().nullable().describe('why it was not run, or how the run ended when it did not exit'),
  })
  .describe(
    '--check-races: the build with clang -fopenmp -fsanitize=thread (Archer), run once with execute.sh at --run-threads',
  );
export type RaceCheck = z.infer<typeof RaceCheckSchema>;

const SuggestionRecordObject = z.object({
  id: z.string(),
  status: z
    .enum(SUGGESTION_STATUSES)
    .describe(
      "DiscoPoP's meanings: ok builds as generated; repaired a verified repair (written says whether it was written back; under --dry-run it is not); failed not repaired (also a verified repair whose write-back failed, see reason); not_applied the generated patches do not apply to the sources and no repair was verified; agent_unreachable; skipped",
    ),
  written: z
    .boolean()
    .default(false)
    .describe(
      'the verified repair was written to patch_generator/<id>/; false under --dry-run and for every other status',
    ),
  hotspot: z.enum(HOTNESS).nullable(),
  pattern_type: z.string().nullable(),
  files: z.array(z.string()).describe('file ids of the patch set'),
  changed_files: z.array(z.string()).describe('file ids a repair changed'),
  attempts: z.number().int().nonnegative().describe('agent calls made, answered and unanswered'),
  unanswered: z.number().int().nonnegative(),
  builtin: z
    .object({ tries: z.number().int().nonnegative(), accepted: z.boolean(), declined: z.string().nullable() })
    .describe('built-in repairer tries; they use no agent budget'),
  backend: z.string().nullable(),
  model: z.string().nullable(),
  accepted_attempt: z
    .number()
    .int()
    .positive()
    .nullable()
    .describe('number of the accepted attempt under attempts/<id>/'),
  first_error: z.string().nullable(),
  error_class: z.enum(ERROR_CLASSES).nullable(),
  reason: z
    .string()
    .nullable()
    .describe(
      'why the suggestion was skipped or not repaired; for failed with reason_code write-failed, why the verified repair could not be written back',
    ),
  reason_code: z
    .enum(REASON_CODES)
    .nullable()
    .default(null)
    .describe(
      'the reason as a value: no-patch, max-repairs, interrupted, refused, cluster-failed, fatal-agent, cost-limit, endpoint-down (the circuit breaker), agent-unreachable (its own allowance spent), not-verified (the budget ran out), not-openmp, no-repairer, write-failed, writes-stopped; null when reason is',
    ),
  repaired_earlier: z.boolean(),
  clause_changes: z.array(ClauseChangeSchema),
  non_directive_lines_changed: z.boolean(),
  may_race: z
    .array(ClauseChangeSchema)
    .default([])
    .describe(
      "the repair's clause changes that take a variable out of a reduction or privatizing clause when the compiler had not rejected it there (undeclared, const): the loop may now race",
    ),
  input_tokens: z
    .number()
    .nonnegative()
    .nullable()
    .default(null)
    .describe("input tokens the agent CLI reported for this suggestion's calls; null when none reported any"),
  output_tokens: z
    .number()
    .nonnegative()
    .nullable()
    .default(null)
    .describe("output tokens the agent CLI reported for this suggestion's calls; null when none reported any"),
  cost_usd: z
    .number()
    .nonnegative()
    .nullable()
    .default(null)
    .describe('cost in USD the agent CLI reported for these calls; null when none reported a cost'),
  builtin_rule: z
    .string()
    .nullable()
    .default(null)
    .describe(
      "the built-in repairer's rules that made the accepted repair, comma-separated (as attempts/<id>/<n>/verdict.json `source` names them after 'builtin: '); null when an agent made it or nothing was repaired",
    ),
  written_files: z
    .array(z.string())
    .default([])
    .describe(
      'patch files this run wrote into patch_generator/<id>/, relative to the .discopop folder; empty unless status is repaired',
    ),
  backup: z
    .string()
    .nullable()
    .default(null)
    .describe(
      'the backup of the generated patch set, relative to the .discopop folder (--restore puts it back); null unless status is repaired',
    ),
  diagnostic_count: z
    .number()
    .int()
    .nonnegative()
    .default(0)
    .describe(
      'how many diagnostics failed the generated build (errors, and warnings that the compiler ignored an added directive); 0 when it built or its failure printed none (a timeout)',
    ),
  diagnostics: z
    .array(RecordedDiagnosticSchema)
    .max(RECORDED_DIAGNOSTICS)
    .default([])
    .describe(
      `the first ${RECORDED_DIAGNOSTICS} of those diagnostics, in the compiler's order; first_error is the first of them in one line`,
    ),
  run_check: RunCheckSchema.nullable().default(null).describe('null without --check-run'),
  race_check: RaceCheckSchema.nullable()
    .default(null)
    .describe('null without --check-races, or when nothing of this suggestion was race-checked'),
  ignored_files: z
    .array(z.string())
    .default([])
    .describe(
      '.patch files of patch_generator/<id>/ left out of the patch set: a name that is not "<file id>.patch", or a file id FileMapping.txt does not list (as DiscoPoP skips them); they stay in the folder, the backup and the digest',
    ),
  duration_s: z
    .number()
    .nonnegative()
    .default(0)
    .describe(
      "wall time in seconds from the suggestion's discovery build to its record: that build plus its repair in this run (a resumed run adds its own segment to a continued repair)",
    ),
});

/**
 * Before format 2, a verified repair that was not written was `not_applied` (reason null under
 * --dry-run, write-failed or writes-stopped when the write-back failed) and `written` did not
 * exist. Such a record is read with today's meanings, so an old log or results.json is never
 * shown as "patch not applicable".
 */
function upgradeLegacyRecord(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || 'written' in value) return value;
  const record = value as { status?: unknown; reason_code?: unknown };
  if (record.status === 'repaired') return { ...record, written: true };
  if (record.status !== 'not_applied') return record;
  return record.reason_code === null || record.reason_code === undefined
    ? { ...record, status: 'repaired', written: false }
    : { ...record, status: 'failed', written: false };
}

export const SuggestionRecordSchema = z.preprocess(upgradeLegacyRecord, SuggestionRecordObject);
export type SuggestionRecord = z.infer<typeof SuggestionRecordObject>;
export { SuggestionRecordObject };

/** The checks an answer passes on its way to the patch generator, in order (docs/review.md, the funnel). */
export const FUNNEL_STAGES = [
  'answered',
  'extracted',
  'applies',
  'canonical',
  'directives_kept',
  'builds',
  'runs_same',
  'written',
] as const;
export type FunnelStage = (typeof FUNNEL_STAGES)[number];

export const FunnelEntrySchema = z
  .object({
    tier: z.enum(['builtin', 'agent']),
    backend: z.string().describe('agent backend, or builtin'),
    model: z.string().nullable(),
    answered: z
      .number()
      .int()
      .nonnegative()
      .describe('answers received (agent calls answered, or built-in repairer answers; declines are not answers)'),
    extracted: z.number().int().nonnegative().describe('answers with a patch for files of the patch set'),
    applies: z.number().int().nonnegative().describe('answers with a candidate that applies'),
    canonical: z.number().int().nonnegative().describe('answers with a candidate re-derived by diff -Naru'),
    directives_kept: z
      .number()
      .int()
      .nonnegative()
      .describe('answers with a candidate that keeps every generated directive'),
    strict: z
      .number()
      .int()
      .nonnegative()
      .nullable()
      .describe('answers with a candidate --strict allows; null without --strict'),
    builds: z
      .number()
      .int()
      .nonnegative()
      .describe('answers with a candidate that builds: verified, unless --check-run runs it'),
    runs_same: z
      .number()
      .int()
      .nonnegative()
      .nullable()
      .default(null)
      .describe('answers with a candidate that builds and runs like the sequential build; null without --check-run'),
    written: z
      .number()
      .int()
      .nonnegative()
      .nullable()
      .describe('verified answers written to patch_generator/; null when the mode writes nothing'),
  })
  .describe(
    'how far the answers of one backend and model got; an answer with several candidates counts once, at the furthest of them',
  );
export type FunnelEntry = z.infer<typeof FunnelEntrySchema>;

/** The OpenMP probe (options.md): one build with a directive every OpenMP compiler must reject. */
export const OpenmpProbeSchema = z.object({
  status: z
    .enum(['rejected', 'compiled', 'no-loop', 'inconclusive'])
    .describe(
      'rejected = the compiler refused the probe, OpenMP is compiled; compiled = the build passed with it, the run refused; no-loop = no loop could hold it; inconclusive = its build failed before the compiler could judge it (patch, timeout)',
    ),
  file: z.string().nullable().describe('project-relative path of the file that held the probe'),
  line: z.number().int().positive().nullable().describe('line of the for loop the probe stood above'),
  directive: z.string().nullable(),
  detail: z.string().nullable().describe('the compiler diagnostic that rejected it, or why the probe proves nothing'),
  duration_ms: z.number().nonnegative().nullable(),
});
export type OpenmpProbe = z.infer<typeof OpenmpProbeSchema>;

export const NotConsideredSchema = z.object({
  id: z.string(),
  reason: z
    .string()
    .describe(
      "'hotspot NO' (or YES, MAYBE): its hotspot type is not in -ht; 'unclassified (no hotspot entry)': the hotspot data does not place it, and -ht never includes such a one; 'not in -s'",
    ),
});
export type NotConsidered = z.infer<typeof NotConsideredSchema>;

/** How the build workspaces got their reference state. */
export const WorkspacesSchema = z.object({
  count: z.number().int().positive().describe('build workspaces made'),
  reference_outputs: z
    .enum(['copied', 'rebuilt'])
    .describe(
      "'copied': further workspaces started from copies of the first reference build's outputs; 'rebuilt': those outputs hold the absolute path of the folder they were built in, so every workspace ran its own reference build",
    ),
  reference_builds: z.number().int().positive().describe('reference builds run, the first one included'),
  path_files: z
    .array(z.string())
    .describe(
      'the first (sorted) of the reference outputs that hold their workspace path, relative to the project root',
    ),
  path_file_count: z.number().int().nonnegative().describe('how many reference outputs hold their workspace path'),
});
export type Workspaces = z.infer<typeof WorkspacesSchema>;

export const RunRecordSchema = z.object({
  id: z.string(),
  started: z.string(),
  finished: z.string().nullable(),
  mode: z.enum(['repair', 'dry-run', 'discover-only']),
  dot_discopop: z.string(),
  config: z.string(),
  backend: z.string().nullable(),
  model: z.string().nullable(),
  options: z.record(z.string(), z.unknown()),
  counts: z.record(z.enum(SUGGESTION_STATUSES), z.number().int().nonnegative()),
  endpoint_down: z.boolean(),
  cost_usd: z
    .number()
    .nonnegative()
    .nullable()
    .describe('cost the agent CLI reported for every call of the run; null when none reported a cost'),
  input_tokens: z.number().nonnegative().nullable().default(null),
  output_tokens: z.number().nonnegative().nullable().default(null),
  funnel: z
    .array(FunnelEntrySchema)
    .default([])
    .describe('the built-in repairer first, then each agent backend and model'),
  exit_code: z.number().int().nullable(),
  openmp_probe: OpenmpProbeSchema.nullable().default(null).describe('null until the probe ran'),
  resumed_from: z.string().nullable().optional().describe('the run this one continued (--resume)'),
  written_by: z
    .enum(['patch-repair', 'discopop_patch_repair'])
    .optional()
    .describe(
      "absent: patch-repair wrote it; discopop_patch_repair: DiscoPoP's own tool wrote the results.json this record was made from (its run-level fields are then inferred)",
    ),
  not_considered: z
    .array(NotConsideredSchema)
    .default([])
    .describe(
      'suggestions of patch_generator/ this run left out, each with the reason; they have no entry in suggestions',
    ),
  run_reference: z
    .object({
      seconds: z
        .number()
        .nonnegative()
        .describe(
          "wall time of the sequential program's first run at 1 thread (the reference build, or a build with seq_settings.json when par_settings.json is not derived from it)",
        ),
      noise_lines: z
        .number()
        .int()
        .nonnegative()
        .describe(
          'output lines that differ between two runs of the reference (or hold a time or date): never compared',
        ),
    })
    .nullable()
    .default(null)
    .describe('--check-run: the reference program run twice with execute.sh; null without --check-run or until it ran'),
  workspaces: WorkspacesSchema.optional().describe(
    'how the build workspaces got their reference state; absent until the reference build passed',
  ),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

/**
 * A run's results as the stages and readers hold them: the suggestions in the order the run
 * considered them. On disk (results.json, format 2: `ResultsFile`) they are an object keyed by id,
 * in results-document.ts; format 1 wrote exactly this shape, so it is also how an old file is read.
 */
export const RunResultsSchema = z.object({
  version: z.literal(1),
  run: RunRecordSchema,
  suggestions: z.array(SuggestionRecordSchema),
});
export type RunResults = z.infer<typeof RunResultsSchema>;
