// What a repair works on, and what the built-in repairer hands back. Shared by the attempt loop,
// the six checks and the built-in repairer.
import type { BuildResult, Suggestion } from './types.js';

export interface RepairTask {
  suggestion: Suggestion;
  /** File id → original source text. */
  sources: Map<string, string>;
  /** File id → generated patch text, as DiscoPoP wrote it. */
  generated: Map<string, string>;
  /** File id → source with the generated patch applied. */
  patched: Map<string, string>;
  /** The failing build of the generated set; diagnostic lines refer to the patched files. */
  build: BuildResult;
  /**
   * File id → the patched file's translation unit: preprocessed by the build's compiler with its
   * flags (`-E`, line markers), for the built-in repairer's scope and type analysis. A file
   * missing here has the reason in `translationUnitsMissing`, when one was tried.
   */
  translationUnits?: Map<string, string>;
  /** File id → why its translation unit could not be made (the repairer then reads the file alone and says so). */
  translationUnitsMissing?: Map<string, string>;
}

/**
 * `answer`: a corrected patch set in the form a model answers with (one ```diff block per changed
 * file), plus the names of the rules that produced it. `declined`: no rule can repair this without
 * restructuring code or guessing; `reason` says why, for the agent's prompt and the report.
 */
export type BuiltinResult = { kind: 'answer'; text: string; rules: string[] } | { kind: 'declined'; reason: string };
