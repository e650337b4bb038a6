// Declarative backend descriptors (backends/*.json): how to run one agent CLI headless, where
// its answer and session id are, and how it says that no answer came. Adding a CLI means
// writing one of these, not code.
import { readFile, access, readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DescriptorSchema, type Descriptor } from '../formats/descriptor.js';
import { zodProblems } from '../formats/zod-problems.js';
import { fileProblem, UsageError } from '../errors.js';

/** `backends/` of the installed package, found from this module in src/ (tests) or dist/ (built). */
export function backendsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'backends');
    if (existsSync(join(candidate, 'claude.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('backends/ not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

export async function builtinBackendNames(): Promise<string[]> {
  const files = await readdir(backendsDir());
  return files
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

export function isDescriptorPath(backend: string): boolean {
  return backend.includes('/') || backend.endsWith('.json');
}

/**
 * `--backend` value → descriptor: a name in backends/, or a descriptor file path. `namedBy` says
 * where the user wrote the name, so an unknown one blames that place: the flag by default, or
 * `<llm_config.json>: connections.<name>.backend` when a connection chose it.
 */
export async function loadDescriptor(
  backend: string,
  cwd: string = process.cwd(),
  namedBy?: string,
): Promise<Descriptor> {
  if (isDescriptorPath(backend)) return readDescriptorFile(resolve(cwd, backend), namedBy);
  const file = join(backendsDir(), `${backend}.json`);
  try {
    await access(file);
  } catch {
    const known = `known: ${[...(await builtinBackendNames()), 'builtin'].join(', ')}; or give a descriptor file path`;
    throw new UsageError(
      namedBy
        ? `${namedBy}: unknown backend '${backend}' (${known})`
        : `--backend ${backend}: unknown backend (${known})`,
    );
  }
  return readDescriptorFile(file);
}

export async function readDescriptorFile(file: string, namedBy?: string): Promise<Descriptor> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`${namedBy ? `${namedBy}: ` : ''}${fileProblem(file, 'read the backend descriptor', error)}`);
  }
  return parseDescriptor(text, file);
}

export function parseDescriptor(text: string, file: string): Descriptor {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not valid JSON: ${(error as Error).message}`);
  }
  const parsed = DescriptorSchema.safeParse(raw);
  if (!parsed.success) throw new UsageError(zodProblems(file, parsed.error).join('\n'));
  return parsed.data;
}
