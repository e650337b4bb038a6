// What the attempt loop needs from the pipeline: the build pool, the agent, the event sink, the
// attempt store and the run-wide budget. Nothing here writes into patch_generator/.
import type { Agent } from '../agent/types.js';
import type { Emit } from '../formats/events.js';
import type { RunOptions } from '../formats/run-options.js';
import type { IsolatedBuilder, AttemptRecorder, VerifyBuilder } from '../formats/outcome.js';
import type { DotDiscopop } from '../formats/types.js';
import type { RunBudget } from './budget.js';
import type { PromptLadder } from './ladder.js';
import type { RunCheckSettings } from './checks/runs.js';
import type { RaceCheckSetup } from './checks/races.js';
import type { CollapseCheck } from './verify.js';

export interface RepairDeps {
  dp: DotDiscopop;
  options: RunOptions;
  pool: VerifyBuilder;
  /** null = no agent CLI installed (or `--backend builtin`): the built-in repairer alone. */
  agent: Agent | null;
  emit: Emit;
  attempts: AttemptRecorder;
  signal: AbortSignal;
  /** Shared by every suggestion of the run: cost, endpoint-down and fatal-error state. */
  budget: RunBudget;
  /** The run's scratch folder; canonicalization and its `diff -Naru` work below it. */
  scratchDir: string;
  /** Check 7 (--check-run): the reference program's runs and how to compare; absent without --check-run. */
  runCheck?: RunCheckSettings;
  /** --check-races: where race builds are made and the reference's races; absent without it. */
  raceCheck?: { pool: IsolatedBuilder; setup: RaceCheckSetup };
  /** The static collapse check of a candidate that builds; absent in tests that build nothing real. */
  collapseCheck?: CollapseCheck;
  /** The prompt ladder; loaded from `options.promptDir` (or the built-in prompts/) when absent. */
  ladder?: PromptLadder;
}
