// One failing suggestion, everything a repairer (built-in or agent) and verification need.
import type { BuildResult, Suggestion } from '../types.js';

export interface RepairTask {
  suggestion: Suggestion;
  /** file id → original source text */
  sources: Map<string, string>;
  /** file id → generated patch text */
  generated: Map<string, string>;
  /** file id → source with the generated patch applied */
  patched: Map<string, string>;
  /** the failing build of the generated set */
  build: BuildResult;
}

export type BuiltinResult = { kind: 'answer'; text: string; rules: string[] } | { kind: 'declined'; reason: string };
