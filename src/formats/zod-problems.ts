// Every reader of a JSON file reports what its schema rejected in these words, so a user sees the
// same `<file>: <key path>: <problem>` line whichever file it was.
import type { z } from 'zod';

/** `patterns.do_all[3].start_line`, the way a user would point at the value in the JSON. */
export function keyPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'top level';
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text;
}

/**
 * One line per problem, every problem at once (a hand-written file usually has more than one);
 * an unknown key of a strict object is named by its own path.
 */
export function zodProblems(file: string, error: z.ZodError): string[] {
  const lines = new Map<string, string>();
  for (const issue of error.issues) {
    const paths = issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key]) : [issue.path];
    const problem = issue.code === 'unrecognized_keys' ? 'unknown key' : issue.message;
    for (const path of paths) {
      const where = `${file}: ${keyPath(path)}`;
      // A refinement failing after a failed check says the same again: one line per key.
      if (!lines.has(where)) lines.set(where, `${where}: ${problem}`);
    }
  }
  return [...lines.values()];
}
