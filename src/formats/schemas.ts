// Every on-disk JSON format, by the file name its JSON Schema gets in schemas/.
import { z } from 'zod';
import { ResultsFileSchema } from './results-document.js';
import { EventSchema } from './events.js';
import { DiscopopProgressEventSchema } from './discopop-progress.js';
import { VerdictFileSchema } from './verdict.js';
import { JournalSchema, LockFileSchema, ScratchFileSchema } from './run-state.js';
import { AppliedSuggestionsSchema, HotspotsFileSchema, PatternsFileSchema, SettingsFileSchema } from './discopop.js';
import { LlmConfigSchema } from './llm-config.js';
import { DescriptorSchema } from './descriptor.js';
import { AnsweredCallSchema, RunStateSchema } from './resume-state.js';

export const SCHEMAS: Record<string, z.ZodType> = {
  'results.schema.json': ResultsFileSchema,
  'progress-event.schema.json': EventSchema,
  // --progress-lines: the JSON after `@@PR_PROGRESS ` on stdout, in DiscoPoP's shape.
  'progress-line.schema.json': DiscopopProgressEventSchema,
  'verdict.schema.json': VerdictFileSchema,
  'write-back-journal.schema.json': JournalSchema,
  'lock.schema.json': LockFileSchema,
  'scratch.schema.json': ScratchFileSchema,
  'run-state.schema.json': RunStateSchema,
  'answered-call.schema.json': AnsweredCallSchema,
  // DiscoPoP's files as patch-repair reads them (only the parts it relies on are constrained).
  'discopop-patterns.schema.json': PatternsFileSchema,
  'discopop-hotspots.schema.json': HotspotsFileSchema,
  'discopop-applied-suggestions.schema.json': AppliedSuggestionsSchema,
  'discopop-settings.schema.json': SettingsFileSchema,
  'llm-config.schema.json': LlmConfigSchema,
  'backend-descriptor.schema.json': DescriptorSchema,
};

/** The JSON Schema text committed as schemas/<name>; a test fails when the two drift apart. */
export function jsonSchemaText(schema: z.ZodType): string {
  return `${JSON.stringify(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }), null, 2)}\n`;
}
