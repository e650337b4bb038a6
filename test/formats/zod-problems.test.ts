// Every reader reports a rejected JSON file in one wording: `<file>: <key path>: <problem>`, one
// line per key, unknown keys of strict objects named by their own path.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { keyPath, zodProblems } from '../../src/formats/zod-problems.js';
import { Problems } from '../../src/discopop/problems.js';
import { parseDescriptor } from '../../src/agent/descriptor.js';

const Schema = z.strictObject({ name: z.string(), loops: z.array(z.strictObject({ start_line: z.number() })) });

describe('zodProblems', () => {
  it('names array elements in brackets and the top level in words', () => {
    expect(keyPath(['patterns', 'do_all', 3, 'start_line'])).toBe('patterns.do_all[3].start_line');
    expect(keyPath([])).toBe('top level');
  });

  it('lists every problem, an unknown key by its own path', () => {
    const parsed = Schema.safeParse({ name: 7, loops: [{ start_line: 1, end: 2 }], extra: true });
    expect(parsed.success).toBe(false);
    expect(zodProblems('f.json', parsed.error!)).toEqual([
      'f.json: name: Invalid input: expected string, received number',
      'f.json: loops[0].end: unknown key',
      'f.json: extra: unknown key',
    ]);
  });

  it('is the wording of the .discopop reader and of the descriptor reader alike', () => {
    const parsed = Schema.safeParse({ name: 'x', loops: [], extra: 1 });
    const problems = new Problems();
    problems.addZodIssues('patterns.json', parsed.error!);
    expect(problems.lines).toEqual(['patterns.json: extra: unknown key']);
    expect(() => parseDescriptor(JSON.stringify({ surplus: 1 }), 'claude.json')).toThrow(
      /^claude\.json: surplus: unknown key$/m,
    );
  });
});
