// The benchmark's imperfection matrix in CI size: a correctness check, no timing.
import { describe, expect, it } from 'vitest';
import * as engine from '../../src/patch/index.js';
import { runProcess } from '../../src/process.js';
import { APPLIERS, CELLS, REFUSAL_CELLS, formatTable, runMatrix } from './matrix.mjs';

describe('imperfection matrix (CI size)', () => {
  it('never misplaces, refuses the refusal cells, and applies correctly at least as often as GNU patch and jsdiff', async () => {
    const samples = 4;
    const { table, misplaced } = await runMatrix({ engine, runProcess, samples, kernels: 24, seed: 7 });
    const shown = formatTable(table);
    expect(misplaced, shown).toEqual([]);
    for (const cell of CELLS) {
      expect(table[cell]!.engine!.wrong, `${cell}\n${shown}`).toBe(0);
      if (REFUSAL_CELLS.has(cell)) {
        expect(table[cell]!.engine!.refused, `${cell}\n${shown}`).toBe(samples);
        continue;
      }
      for (const other of APPLIERS.filter((name) => name !== 'engine')) {
        expect(table[cell]!.engine!.right, `${cell} vs ${other}\n${shown}`).toBeGreaterThanOrEqual(
          table[cell]![other]!.right,
        );
      }
    }
    // The matrix itself must be able to tell the appliers apart, or the comparison says nothing.
    expect(table['identical loops, wrong line']!['GNU patch']!.wrong).toBe(samples);
    expect(table['re-indented hunk']!.engine!.right).toBe(samples);
  });
});
