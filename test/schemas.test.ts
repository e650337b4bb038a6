// schemas/ is generated from the zod schemas (npm run schemas); other tools validate against the
// committed files, so they must never drift from what the code accepts and writes.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { SCHEMAS, jsonSchemaText } from '../src/formats/schemas.js';

const DIR = path.resolve('schemas');

it('has exactly one committed JSON Schema per on-disk format', () => {
  expect(readdirSync(DIR).sort()).toEqual(Object.keys(SCHEMAS).sort());
});

it.each(Object.entries(SCHEMAS))('schemas/%s matches its zod schema (run `npm run schemas`)', (name, schema) => {
  expect(readFileSync(path.join(DIR, name), 'utf8')).toBe(jsonSchemaText(schema));
});
