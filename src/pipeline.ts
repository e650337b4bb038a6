// PLACEHOLDER: preflight → discovery → repair → write-back → summary lands with the repair loop.
import type { RunOptions } from './run-options.js';

/** Runs one invocation and returns its exit code. */
export async function run(options: RunOptions): Promise<number> {
  throw new Error(`pipeline not implemented yet (mode ${options.mode})`);
}
