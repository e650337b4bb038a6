// Writes schemas/*.schema.json from the zod schemas in src/ (built to dist/).
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { SCHEMAS } from '../dist/schemas.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
mkdirSync(join(root, 'schemas'), { recursive: true });
for (const [name, schema] of Object.entries(SCHEMAS)) {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  writeFileSync(join(root, 'schemas', name), `${JSON.stringify(json, null, 2)}\n`);
  console.log(`schemas/${name}`);
}
