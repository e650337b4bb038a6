// The files --resume reads: patch_repair/run-state.json (what a run settled, and the digests that
// say whether it may be trusted) and attempts/<id>/<n>/call.json (an answer recorded before its
// checks). store/ reads and writes them; docs/concurrency.md describes them.
import { z } from 'zod';
import { BuildResultSchema } from './build-result.js';
import { SuggestionRecordSchema } from './results.js';
import { ScreenedObjectsSchema } from './events.js';

export const RunStateSchema = z.object({
  version: z.literal(2),
  run_id: z.string(),
  mode: z.enum(['repair', 'dry-run']),
  tree: z
    .record(z.string(), z.string())
    .describe(
      'each entry of the project tree a workspace copies, by project-relative path: kind, size, modification time, link text',
    ),
  environment: z
    .record(z.string(), z.string())
    .describe(
      'digest of each other input every build depends on, by name: compile.sh, settings, configuration and threads, compilers, --exclude',
    ),
  outputs: z
    .array(z.string())
    .describe(
      "project-relative files the run's own stdout and stderr went to: a resumed run does not count their changes as changes of the project",
    ),
  builds: z
    .record(
      z.string(),
      z.object({ digest: z.string().describe('the environment plus the patch set built'), build: BuildResultSchema }),
    )
    .describe('discovery build of each considered suggestion with a patch'),
  finished: z.record(z.string(), SuggestionRecordSchema).describe('records that a resumed run keeps as they are'),
  screened: z
    .record(z.string(), z.object({ digest: z.string(), objects: ScreenedObjectsSchema }))
    .default({})
    .describe('suggestions whose screen passed and whose confirmation build had not finished: not screened again'),
  complete: z.boolean().describe('every considered suggestion finished: nothing to resume'),
});
export type RunState = z.infer<typeof RunStateSchema>;

/**
 * Version 1, written by releases before the project tree was kept entry by entry: one digest of
 * everything every build depends on. Still read, so a run stopped before an upgrade is resumed
 * after it (pipeline/resume.ts converts it in memory); never written.
 */
export const RunStateVersion1Schema = z.object({
  version: z.literal(1),
  run_id: z.string(),
  mode: z.enum(['repair', 'dry-run']),
  inputs: z
    .string()
    .describe('digest of what every build depends on: project tree, compile.sh, settings, compiler identity, threads'),
  builds: z.record(
    z.string(),
    z.object({ digest: z.string().describe('inputs plus the patch set built'), build: BuildResultSchema }),
  ),
  finished: z.record(z.string(), SuggestionRecordSchema),
  complete: z.boolean(),
});
export type RunStateVersion1 = z.infer<typeof RunStateVersion1Schema>;

/** run-state.json as --resume reads it: this release's version, or the one before. */
export const StoredRunStateSchema = z.discriminatedUnion('version', [RunStateSchema, RunStateVersion1Schema]);
export type StoredRunState = z.infer<typeof StoredRunStateSchema>;

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
  input_tokens: z.number().nullable().default(null),
  output_tokens: z.number().nullable().default(null),
});
export type AnsweredCall = z.infer<typeof AnsweredCallSchema>;
