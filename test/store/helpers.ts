// Shared by the store tests: a throw-away .discopop with one suggestion, and a way to run a store
// operation in a real child process that a test can kill.
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunOutcome, runProcess } from '../../src/process.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const childScript = join(here, 'children', 'store-child.mjs');

export async function makeDotDir(): Promise<string> {
  const base = await mkdtemp(join(tmpdir(), 'store-test-'));
  const dotDir = join(base, '.discopop');
  await mkdir(join(dotDir, 'patch_generator'), { recursive: true });
  return dotDir;
}

export async function removeDotDir(dotDir: string): Promise<void> {
  await rm(dirname(dotDir), { recursive: true, force: true });
}

/** A patch as the generator writes it; `pragma` varies it so each version has different bytes. */
export function patchText(fileId: string, pragma: string): string {
  return [
    `--- /home/dev/demo/src/f${fileId}.c\t2026-11-30 14:20:37.315505892 +0000`,
    `+++ /home/dev/demo/src/f${fileId}.c.discopop_patch_generator.temp\t2026-11-30 14:20:38.094634531 +0000`,
    '@@ -8,6 +8,7 @@',
    '   int sum = 0;',
    '   int a[N], b[N];',
    ' ',
    `+  ${pragma}`,
    '   for (int i = 0; i < N; i++) {',
    '     sum += a[i] * b[i];',
    '   }',
    '',
  ].join('\n');
}

export type FileSet = Record<string, string>;

export async function writeSuggestion(dotDir: string, id: string, files: FileSet): Promise<void> {
  const dir = join(dotDir, 'patch_generator', id);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
}

/** Every entry of a folder with its bytes as text, hidden ones included; {} when it does not exist. */
export async function readFolder(dir: string): Promise<FileSet> {
  const files: FileSet = {};
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return files;
  }
  for (const name of names.sort()) {
    if ((await stat(join(dir, name))).isFile()) files[name] = await readFile(join(dir, name), 'utf8');
    else files[`${name}/`] = '(folder)';
  }
  return files;
}

/** Makes sure the child process runs the code under test, not an old build. */
export async function assertDistIsFresh(): Promise<void> {
  const built = (await stat(join(root, 'dist', 'store', 'index.js'))).mtimeMs;
  for (const name of await readdir(join(root, 'src', 'store'))) {
    if ((await stat(join(root, 'src', 'store', name))).mtimeMs > built) {
      throw new Error(`dist/ is older than src/store/${name}: run \`npm run build\` before these tests`);
    }
  }
}

export async function runChild(
  request: Record<string, unknown>,
  fault?: string,
  signal?: AbortSignal,
): Promise<RunOutcome> {
  return runProcess({
    command: process.execPath,
    args: [childScript, JSON.stringify(request)],
    cwd: root,
    env: { PATCH_REPAIR_FAULT: fault },
    timeoutMs: 30_000,
    signal,
  });
}

export function describeRun(outcome: RunOutcome): string {
  return outcome.kind === 'spawn-failed'
    ? outcome.message
    : `${outcome.kind} ${JSON.stringify(outcome)}`.slice(0, 2000);
}
