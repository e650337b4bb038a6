// Other tools read the store's files through the JSON Schemas in schemas/; they must say exactly
// what the zod schemas accept (`npm run schemas` regenerates them).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { SCHEMAS } from '../../src/formats/schemas.js';

const STORE_SCHEMAS = [
  'results.schema.json',
  'progress-event.schema.json',
  'verdict.schema.json',
  'write-back-journal.schema.json',
];

it.each(STORE_SCHEMAS)('schemas/%s matches its zod schema', async (name) => {
  const schema = SCHEMAS[name];
  expect(schema, `${name} is not registered in src/formats/schemas.ts`).toBeDefined();
  const committed = JSON.parse(await readFile(join(import.meta.dirname, '..', '..', 'schemas', name), 'utf8'));
  expect(committed).toEqual(z.toJSONSchema(schema!, { io: 'input', unrepresentable: 'any' }));
});
