import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { isNotFound } from './path-kind.js';
import type { Problems } from './problems.js';

export type JsonRead<T> = { kind: 'ok'; value: T } | { kind: 'missing' } | { kind: 'invalid' };

/** Reads and validates one JSON file; every problem goes to `problems`, absence is left to the caller. */
export async function readJsonFile<S extends z.ZodType>(
  file: string,
  schema: S,
  problems: Problems,
): Promise<JsonRead<z.output<S>>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (isNotFound(error)) return { kind: 'missing' };
    problems.addFileError(file, 'read', error);
    return { kind: 'invalid' };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    problems.add(file, 'whole file', `expected JSON (${(error as Error).message})`);
    return { kind: 'invalid' };
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    problems.addZodIssues(file, parsed.error);
    return { kind: 'invalid' };
  }
  return { kind: 'ok', value: parsed.data };
}
