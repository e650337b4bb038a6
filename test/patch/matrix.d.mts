// Types for matrix.mjs, which the bench script runs as plain JavaScript.
import type * as Engine from '../../src/patch/index.js';
import type { runProcess as RunProcess } from '../../src/process.js';

export type Verdict = 'right' | 'wrong' | 'refused';
export type Table = Record<string, Record<string, Record<Verdict, number>>>;

export const CELLS: string[];
export const APPLIERS: string[];
export const REFUSAL_CELLS: Set<string>;

export interface Sample {
  cell: string;
  seed: number;
  source: string;
  generatedPatch: string;
  candidatePatch: string;
  expected: string;
}

export function makeSample(cell: string, seed: number, kernels?: number): Sample;
export function classify(result: string | null, expected: string): Verdict;
export function runMatrix(o: {
  engine: Pick<typeof Engine, 'parsePatches' | 'applyPatchSet'>;
  runProcess: typeof RunProcess;
  samples: number;
  kernels?: number;
  seed?: number;
}): Promise<{ table: Table; misplaced: { cell: string; seed: number }[] }>;
export function formatTable(table: Table): string;
export function largeInput(): { source: string; patch: string; hunks: number };
