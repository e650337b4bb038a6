// Runs the configuration's execute.sh in a workspace the way DiscoPoP's project manager runs it
// after a successful compile.sh (formats.md §1.8): the same environment as compile.sh (settings
// keys, DP_PROJECT_ROOT_DIR, DOT_DISCOPOP, OMP_NUM_THREADS), from the configuration folder in the
// per-configuration layout and as `/bin/bash <script>` from the copy's root in the shared one.
// execute.sh lives in the configuration's own folder in both layouts.
import { join } from 'node:path';
import type { ProgramRun } from '../formats/outcome.js';
import type { BuildConfig } from '../formats/types.js';
import { describeOutcome, type RunOutcome } from '../process.js';
import { runConfigurationScript, workspacePath, type CompileRequest } from './compile.js';
import type { StepOutcome } from './launcher.js';

export function executeScriptOf(config: Pick<BuildConfig, 'dir'>): string {
  return join(config.dir, 'execute.sh');
}

/** What a run needs is what a build needs: the same script environment, launcher and limits. */
export type ExecuteRequest = CompileRequest;

/**
 * stderr joins stdout, as with compile.sh: the Slurm launcher merges them anyway, and one stream
 * compares the same under both launchers.
 */
export function runExecuteScript(request: ExecuteRequest): Promise<StepOutcome> {
  return runConfigurationScript(
    request,
    join(request.workspaceRoot, workspacePath(request.dp, executeScriptOf(request.dp.config))),
  );
}

/** A run of execute.sh as the run check reads it. */
export function programRun(threads: number, outcome: RunOutcome): ProgramRun {
  const durationMs = outcome.durationMs;
  switch (outcome.kind) {
    case 'exited':
      return {
        threads,
        ending: 'exited',
        exitCode: outcome.exitCode,
        signal: null,
        output: outcome.stdout + outcome.stderr,
        durationMs,
        validation: null,
      };
    case 'signaled':
      return {
        threads,
        ending: 'signaled',
        exitCode: null,
        signal: outcome.signal,
        output: outcome.stdout + outcome.stderr,
        durationMs,
        validation: null,
      };
    case 'timeout':
      return {
        threads,
        ending: 'timeout',
        exitCode: null,
        signal: null,
        output: outcome.stdout + outcome.stderr,
        durationMs,
        validation: null,
      };
    case 'canceled':
    case 'spawn-failed':
      // An abort is thrown before this; sh itself always starts.
      throw new Error(`execute.sh ${describeOutcome(outcome)}`);
  }
}
