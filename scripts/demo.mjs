// npm run demo: the main job on the bundled demo, on a scratch copy so the checkout stays clean.
// Uses the built-in repairer only: no agent CLI, no network.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { instantiateFixture } from './instantiate-fixture.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { dotDir } = instantiateFixture('demo');
console.log(`Demo project copied to ${dirname(dotDir)}\n`);
const args = [join(root, 'dist', 'cli.js'), '--dot-dp-path', dotDir, '--backend', 'builtin', ...process.argv.slice(2)];
const { status } = spawnSync(process.execPath, args, { stdio: 'inherit' });
console.log(`\nOutputs: ${join(dotDir, 'patch_repair')} (results.json, progress.jsonl, attempts/, backups/)`);
console.log(`Review:  node dist/cli.js show --dot-dp-path ${dotDir}`);
console.log(`Undo:    node dist/cli.js --dot-dp-path ${dotDir} --restore`);
process.exit(status ?? 1);
