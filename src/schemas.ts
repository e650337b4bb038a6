// Every on-disk JSON format, by the file name its JSON Schema gets in schemas/.
import type { z } from 'zod';
import { ResultsFileSchema } from './store/results.js';
import { EventSchema } from './store/events.js';

export const SCHEMAS: Record<string, z.ZodType> = {
  'results.schema.json': ResultsFileSchema,
  'progress-event.schema.json': EventSchema,
};
