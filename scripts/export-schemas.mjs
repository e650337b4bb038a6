// Writes schemas/*.schema.json from the zod schemas in src/ (built to dist/).
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMAS, jsonSchemaText } from '../dist/formats/schemas.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
mkdirSync(join(root, 'schemas'), { recursive: true });
for (const [name, schema] of Object.entries(SCHEMAS)) {
  writeFileSync(join(root, 'schemas', name), jsonSchemaText(schema));
  console.log(`schemas/${name}`);
}
