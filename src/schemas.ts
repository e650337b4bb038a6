// Every on-disk JSON format, by the file name its JSON Schema gets in schemas/.
import { z } from 'zod';
import { ResultsFileSchema } from './store/results.js';
import { EventSchema } from './store/events.js';
import { VerdictSchema } from './store/verdict.js';
import { JournalSchema } from './store/journal.js';
import { LockFileSchema } from './store/lock.js';
import { ScratchFileSchema } from './store/scratch.js';
import { RunStateSchema } from './store/run-state.js';
import { AnsweredCallSchema } from './store/attempts.js';
import { AppliedSuggestionsSchema } from './discopop/applied.js';
import { SettingsFileSchema } from './discopop/build-config.js';
import { HotspotsFileSchema } from './discopop/hotspots.js';
import { PatternsFileSchema } from './discopop/patterns.js';
import { LlmConfigSchema } from './agent/config.js';
import { DescriptorSchema } from './agent/descriptor.js';

export const SCHEMAS: Record<string, z.ZodType> = {
  'results.schema.json': ResultsFileSchema,
  'progress-event.schema.json': EventSchema,
  'verdict.schema.json': VerdictSchema,
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
