// Types of race-programs.mjs for the TypeScript tests.
export interface RaceProgram {
  name: string;
  mainC: string;
  loopLine: number;
  generated: string;
  racy: string;
  right: string;
  raceLine: number;
  /** Where a clang-N puts the racing line when it differs from clang 14. */
  raceLineBy?: Record<string, number>;
  variable: string | null;
}
export declare const SHARED_TEMP: RaceProgram;
export declare const ARRAY_REDUCTION: RaceProgram;
export declare const INNER_INDEX: RaceProgram;
export declare const FILE_SCOPE_SECTION: RaceProgram & { section: string };
export declare const RACE_PROGRAMS: RaceProgram[];
