// npm run bench -- <name> [args]: runs scripts/bench/<name>.mjs against the built dist/.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = join(dirname(fileURLToPath(import.meta.url)), 'bench');
const available = readdirSync(here)
  .filter((f) => f.endsWith('.mjs'))
  .map((f) => f.replace(/\.mjs$/, ''));
const [name, ...args] = process.argv.slice(2);
const selected = name ? [name] : available;
for (const bench of selected) {
  if (!available.includes(bench)) {
    console.error(`patch-repair bench: unknown benchmark '${bench}' (have: ${available.join(', ')})`);
    process.exit(2);
  }
  const module = await import(pathToFileURL(join(here, `${bench}.mjs`)).href);
  await module.default(args);
}
