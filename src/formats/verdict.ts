// attempts/<id>/<n>/verdict.json: what became of one attempt. Written for every attempt, accepted,
// rejected, declined or unanswered, so a reviewer can follow every call the run made.
import { z } from 'zod';
import { CallOutcomeSchema, CheckNameSchema } from './events.js';
import { ClauseChangeSchema, RaceCheckSchema, RunCheckSchema } from './results.js';

export const ApplyReportSchema = z.object({
  basis: z
    .enum(['unpatched', 'on-top'])
    .nullable()
    .describe('what the candidate applied to; null when it did not apply'),
  files: z.array(
    z.object({
      file: z.string().describe('file id'),
      applied: z.boolean(),
      hunks: z.array(
        z.object({
          hunk: z.number().int().positive(),
          applied: z.boolean(),
          line: z.number().int().nullable().describe('line of the source where the hunk landed'),
          offset: z.number().int().nullable().describe('lines away from where the hunk header said'),
          fuzz: z.number().int().nonnegative().nullable().describe('context lines that had to be ignored'),
          reason: z.string().nullable().describe('why it did not apply, in the words the model is shown'),
        }),
      ),
    }),
  ),
});
export type ApplyReport = z.infer<typeof ApplyReportSchema>;

export const UsageSchema = z.object({
  duration_ms: z.number().nonnegative(),
  input_tokens: z.number().nullable(),
  output_tokens: z.number().nullable(),
  cost_usd: z.number().nullable(),
  cli_version: z.string().nullable(),
});

export const VerdictFileSchema = z.object({
  version: z.literal(1),
  id: z.string().describe('suggestion id'),
  attempt: z.number().int().positive().describe('the <n> of attempts/<id>/<n>/'),
  tier: z.enum(['builtin', 'agent']),
  prompt: z.number().int().nonnegative().describe('which --prompts conversation, from 1; 0 for the built-in repairer'),
  turn: z.number().int().nonnegative().describe('0 = first call of the conversation, then follow-ups'),
  source: z.string().describe('ladder rung, follow-up, or the built-in rules applied'),
  call_outcome: CallOutcomeSchema,
  call_detail: z.string().nullable(),
  outcome: z
    .enum(['accepted', 'rejected', 'declined', 'unanswered', 'fatal'])
    .describe('unanswered and fatal calls used no prompt or retry'),
  rejected_by: CheckNameSchema.nullable().describe('the check that rejected the candidate'),
  reason: z.string().nullable().describe('why it was rejected: the text of the follow-up turn'),
  run_check: RunCheckSchema.nullable()
    .default(null)
    .describe("check 7's runs of the candidate (--check-run); null when they did not run"),
  race_check: RaceCheckSchema.nullable()
    .default(null)
    .describe('the race build and run of the candidate (--check-races); null when it did not run'),
  checks: z.array(z.object({ check: CheckNameSchema, passed: z.boolean(), reason: z.string().nullable() })),
  apply_report: ApplyReportSchema.nullable(),
  clause_changes: z.array(ClauseChangeSchema),
  non_directive_lines_changed: z.boolean().nullable(),
  usage: UsageSchema.nullable(),
  candidates: z
    .array(
      z.object({
        candidate: z.number().int().positive(),
        blocks: z.array(z.number().int().positive()).describe("the answer's diff blocks it is made of, from 1"),
        reading: z
          .enum(['diff', 'hunk-context'])
          .default('diff')
          .describe(
            "diff: the blocks as diffs (a differing context line keeps the file's line); hunk-context: with those context lines written as the answer has them, a code edit outside the directive",
          ),
        accepted: z.boolean(),
        rejected_by: CheckNameSchema.nullable().describe(
          'null when accepted, or not built because an earlier candidate passed every check',
        ),
        reason: z.string().nullable(),
        checks: z.array(z.object({ check: CheckNameSchema, passed: z.boolean(), reason: z.string().nullable() })),
      }),
    )
    .default([])
    .describe(
      'every candidate of an answer that offered alternatives; empty when it held one. The verdict above is the accepted one, else the one that got furthest',
    ),
});
export type VerdictFile = z.infer<typeof VerdictFileSchema>;
