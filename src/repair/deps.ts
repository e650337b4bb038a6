// What the attempt loop needs from the pipeline: the build pool, the agent, the event sink, the
// attempt store and the run-wide budget. Nothing here writes into patch_generator/.
import type { Agent } from '../agent/types.js';
import type { Emit } from '../formats/events.js';
import type { RunOptions } from '../formats/run-options.js';
import type { AttemptRecorder } from '../formats/outcome.js';
import type { DotDiscopop } from '../formats/types.js';
import type { RunBudget } from './budget.js';
import type { PromptLadder } from './ladder.js';
import type { VerifyDeps } from './verify.js';

/** What verification needs (VerifyDeps) and what the loop adds: the agent, the sink, the store, the budget. */
export interface RepairDeps extends VerifyDeps {
  dp: DotDiscopop;
  options: RunOptions;
  /** null = no agent CLI installed (or `--backend builtin`): the built-in repairer alone. */
  agent: Agent | null;
  emit: Emit;
  attempts: AttemptRecorder;
  signal: AbortSignal;
  /** Shared by every suggestion of the run: cost, endpoint-down and fatal-error state. */
  budget: RunBudget;
  /**
   * The prompt ladder; loaded from `options.promptDir` (or the built-in prompts/) when absent, with no
   * environment to find an installed DiscoPoP in (the pipeline always hands its own ladder).
   */
  ladder?: PromptLadder;
}
