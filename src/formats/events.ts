// progress.jsonl: the structured event stream of a run. Stages emit these; the terminal reporter,
// the log file and `patch-repair show` all read the same values.
import { z } from 'zod';
import { ENDING_REASONS } from '../errors.js';
import { ERROR_CLASSES } from './types.js';
import { BuildResultSchema } from './build-result.js';
import { OpenmpProbeSchema, SuggestionRecordSchema, RunRecordSchema, WorkspacesSchema } from './results.js';

const base = { t: z.string().describe('ISO time') };

const CheckName = z.enum([
  'extraction',
  'dry-run-apply',
  'apply',
  'canonicalize',
  'directives-kept',
  'builds',
  'runs',
  'races',
  'strict',
]);
export type CheckName = z.infer<typeof CheckName>;
export const CheckNameSchema = CheckName;

/** What a check of one candidate reported; the reason is written for the model. */
export interface CheckResult {
  check: CheckName;
  passed: boolean;
  reason: string | null;
}

export const NO_ANSWER_REASONS = ['unreachable', 'server-error', 'rate-limited', 'timeout', 'crashed'] as const;
export type NoAnswerReason = (typeof NO_ANSWER_REASONS)[number];

export const FATAL_REASONS = ['auth', 'quota', 'misconfigured'] as const;
export type FatalReason = (typeof FATAL_REASONS)[number];

/** A fatal reason stops every agent call of the run (design.md, "Fatal agent errors"). */
export function isFatalReason(reason: string): reason is FatalReason {
  return (FATAL_REASONS as readonly string[]).includes(reason);
}

/** What an agent CLI reported about one call. */
export interface CallUsage {
  durationMs: number;
  /** True when the model produced output for this call (an answer, or tokens were billed). */
  reachedModel?: boolean;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
  cliVersion?: string;
}

/** How an agent or built-in call ended: answered, declined, or the no-answer / fatal reason. */
export const CallOutcomeSchema = z.enum(['answered', 'declined', ...NO_ANSWER_REASONS, ...FATAL_REASONS]);
export type CallOutcome = z.infer<typeof CallOutcomeSchema>;

const BuildPurpose = z.enum(['reference', 'probe', 'discovery', 'verify']);

export const EventSchema = z.discriminatedUnion('type', [
  z.object({ ...base, type: z.literal('run-started'), run: RunRecordSchema }),
  z.object({ ...base, type: z.literal('notice'), level: z.enum(['info', 'warning', 'error']), message: z.string() }),
  z.object({
    ...base,
    type: z.literal('discovery-started'),
    suggestions: z.array(z.string()).describe('every considered suggestion, in order'),
    builds: z.number().int().nonnegative().describe('how many of them have a patch to build now'),
    reused: z
      .number()
      .int()
      .nonnegative()
      .default(0)
      .describe('discovery builds taken over from the resumed run instead of built again'),
    jobs: z.number().int(),
  }),
  z.object({
    ...base,
    type: z.literal('build-started'),
    id: z.string().nullable().describe('null = reference build or OpenMP probe'),
    purpose: BuildPurpose,
  }),
  z.object({
    ...base,
    type: z.literal('build-finished'),
    id: z.string().nullable(),
    purpose: BuildPurpose,
    ok: z.boolean(),
    error_class: z.enum(ERROR_CLASSES).nullable(),
    first_error: z.string().nullable(),
    duration_ms: z.number(),
  }),
  z.object({ ...base, type: z.literal('openmp-probe'), probe: OpenmpProbeSchema }),
  z.object({
    ...base,
    type: z.literal('run-reference'),
    seconds: z
      .number()
      .nonnegative()
      .describe("wall time of the reference build's first run with execute.sh at 1 thread"),
    noise_lines: z
      .number()
      .int()
      .nonnegative()
      .describe('output lines never compared: they differ between two runs of the reference, or hold a time or date'),
  }),
  z.object({
    ...base,
    type: z.literal('race-reference'),
    seconds: z
      .number()
      .nonnegative()
      .describe(
        'wall time of the race build (clang -fsanitize=thread) of the project without any suggestion and its run',
      ),
    threads: z.number().int().positive(),
    races: z
      .array(z.string())
      .describe("the project's own data races, one per racing access pair: not counted against any suggestion"),
  }),
  z.object({
    ...base,
    type: z.literal('agent-picked'),
    message: z
      .string()
      .nullable()
      .describe(
        'which agent CLI the run detected and uses, or that the built-in repairer runs alone; null when the user named it',
      ),
    backend: z
      .string()
      .nullable()
      .default(null)
      .describe(
        'the agent backend the run calls, builtin when the built-in repairer works alone, null when nothing repairs',
      ),
    model: z.string().nullable().default(null),
  }),
  z.object({ ...base, type: z.literal('resumed'), from: z.string().describe('the run this one continues (--resume)') }),
  z.object({ ...base, type: z.literal('workspaces'), workspaces: WorkspacesSchema }),
  z.object({
    ...base,
    type: z.literal('discovered'),
    id: z.string(),
    digest: z
      .string()
      .nullable()
      .describe('what the build depended on (the patch set); null when the run cannot be resumed'),
    reused: z.boolean().describe('taken over from the resumed run instead of built again'),
    build: BuildResultSchema,
  }),
  z.object({
    ...base,
    type: z.literal('repair-started'),
    id: z.string(),
    index: z.number().int(),
    total: z.number().int(),
  }),
  z.object({
    ...base,
    type: z.literal('call-started'),
    id: z.string(),
    attempt: z.number().int().positive().describe('number under attempts/<id>/'),
    tier: z.enum(['builtin', 'agent']),
    prompt: z
      .number()
      .int()
      .nonnegative()
      .describe('which --prompts conversation, from 1; 0 for the built-in repairer, as in its verdict.json'),
    turn: z.number().int().nonnegative().describe('0 = first call, then follow-ups'),
    template: z
      .string()
      .optional()
      .describe(
        'the prompt template of an agent call (its ladder rung, or follow-up); absent for the built-in repairer',
      ),
  }),
  z.object({
    ...base,
    type: z.literal('call-finished'),
    id: z.string(),
    attempt: z.number().int().positive(),
    tier: z.enum(['builtin', 'agent']),
    outcome: CallOutcomeSchema,
    detail: z.string().nullable(),
    duration_ms: z.number(),
    input_tokens: z.number().nullable(),
    output_tokens: z.number().nullable(),
    cost_usd: z.number().nullable(),
    cli_version: z.string().nullable(),
    backend: z.string().nullable().default(null).describe('the agent backend, or builtin'),
    model: z.string().nullable().default(null),
  }),
  z.object({
    ...base,
    type: z.literal('check'),
    id: z.string(),
    attempt: z.number().int().positive(),
    candidate: z
      .number()
      .int()
      .positive()
      .nullable()
      .default(null)
      .describe('which candidate of an answer holding alternatives, from 1; null when it holds one'),
    candidates: z.number().int().positive().default(1).describe('how many candidates the answer holds'),
    check: CheckName,
    passed: z.boolean(),
    reason: z.string().nullable(),
  }),
  z.object({
    ...base,
    type: z.literal('writing'),
    record: SuggestionRecordSchema.describe('the record of a verified repair, as it stands once written'),
  }),
  z.object({ ...base, type: z.literal('written'), id: z.string(), files: z.array(z.string()), digest: z.string() }),
  z.object({ ...base, type: z.literal('suggestion-finished'), record: SuggestionRecordSchema }),
  z
    .object({
      ...base,
      type: z.literal('agent-stopped'),
      reason_code: z.enum(['fatal-agent', 'endpoint-down']),
      reason: z.string(),
    })
    .describe('no further agent call is made in this run: a fatal agent error, or the endpoint looks down'),
  z
    .object({
      ...base,
      type: z.literal('ended'),
      reason: z.enum(ENDING_REASONS).describe(`what ended the run early: ${ENDING_REASONS.join(', ')}`),
      exit_code: z.number().int(),
    })
    .describe('a signal, a refusal or the cluster ended the run; what it did not finish is recorded as skipped'),
  z
    .object({
      ...base,
      type: z.literal('interrupted'),
      exit_code: z.number().int().describe('130 for SIGINT, 143 for SIGTERM (SIGHUP does not stop a run)'),
    })
    .describe('written by earlier releases where this one writes `ended`; read as the signal that ended the run'),
  z.object({ ...base, type: z.literal('run-finished'), run: RunRecordSchema }),
]);
export type RunEvent = z.infer<typeof EventSchema>;

/** An event before the time stamp is added; what stages pass to `emit`. */
export type EventInput = RunEvent extends infer E ? (E extends { t: string } ? Omit<E, 't'> : never) : never;
export type Emit = (event: EventInput) => void;
