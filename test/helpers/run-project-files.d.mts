// Types of run-project-files.mjs for the TypeScript tests.
export type Layout = 'per-configuration' | 'shared';

export interface RunProjectFiles {
  mainC: string;
  loopLine: number;
  generated: string;
  execute?: string;
  layout?: Layout;
  compiler?: 'gcc' | 'clang';
  /** CFLAGS of seq_settings.json; -O1 unless given. */
  seqCflags?: string;
  /** A par_settings.json of the configuration (per-configuration layout); none unless given. */
  parSettings?: Record<string, string>;
}

export declare const RACE_C: string;
export declare const RACE_LOOP_LINE: number;
export declare const RACY: string;
export declare const LAST_C: string;
export declare const LAST_TWICE: string;
export declare const LAST_RIGHT: string;
export declare const EXECUTE_PRINTS: string;
export declare function insertionDiff(
  root: string,
  source: string,
  line: number,
  directive: string,
  header?: string,
): string;
export declare function answerText(root: string, source: string, line: number, directive: string): string;
export declare function writeRunProject(o: RunProjectFiles): Promise<{ root: string; dot: string }>;
