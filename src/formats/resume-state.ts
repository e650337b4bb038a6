// The files --resume reads: patch_repair/run-state.json (what a run settled, and the digests that
// say whether it may be trusted) and attempts/<id>/<n>/call.json (an answer recorded before its
// checks). store/ reads and writes them; docs/concurrency.md describes them.
import { z } from 'zod';
import { ERROR_CLASSES } from './types.js';
import { SuggestionRecordSchema } from './results.js';

const place = {
  file: z.string(),
  fileId: z.string().optional(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
};

// The BuildResult of types.ts as stored; resume.ts hands a parsed one on as a BuildResult, so the
// compiler catches the two drifting apart.
const DiagnosticSchema = z.object({
  ...place,
  severity: z.enum(['error', 'warning', 'note', 'fatal error']),
  message: z.string(),
  errorClass: z.enum(ERROR_CLASSES),
  notes: z.array(z.object({ ...place, message: z.string() })),
});

export const BuildResultSchema = z.object({
  ok: z.boolean(),
  failedAt: z.enum(['patch', 'compile', 'timeout']).optional(),
  output: z.string(),
  diagnostics: z.array(DiagnosticSchema),
  errorClass: z.enum(ERROR_CLASSES).optional(),
  firstError: z.string().optional(),
  durationMs: z.number(),
});

export const RunStateSchema = z.object({
  version: z.literal(1),
  run_id: z.string(),
  mode: z.enum(['repair', 'dry-run']),
  inputs: z.string().describe('digest of what every build depends on: project tree, compile.sh, settings, compiler identity, threads'),
  builds: z
    .record(z.string(), z.object({ digest: z.string().describe('inputs plus the patch set built'), build: BuildResultSchema }))
    .describe('discovery build of each considered suggestion with a patch'),
  finished: z.record(z.string(), SuggestionRecordSchema).describe('records that a resumed run keeps as they are'),
  complete: z.boolean().describe('every considered suggestion finished: nothing to resume'),
});
export type RunState = z.infer<typeof RunStateSchema>;

/**
 * attempts/<id>/<n>/call.json: an answer that came back, written before verification starts, so
 * a run killed while checking it can be resumed by checking it again instead of asking again.
 */
export const AnsweredCallSchema = z.object({
  version: z.literal(1),
  id: z.string(),
  attempt: z.number().int().positive(),
  tier: z.enum(['builtin', 'agent']),
  prompt: z.number().int().nonnegative().describe('which --prompts conversation; 0 for the built-in repairer'),
  turn: z.number().int().nonnegative(),
  source: z.string(),
  cost_usd: z.number().nullable(),
});
export type AnsweredCall = z.infer<typeof AnsweredCallSchema>;
