// Where the user's own DiscoPoP keeps its prompt templates. A DiscoPoP template set given with
// --prompt-dir may leave files out, counting on DiscoPoP's built-in ones; those belong to DiscoPoP
// and are read from the user's installation, never shipped here.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { runProcess } from '../process.js';

/** Names DiscoPoP's PatchRepair/prompts/ folder; set when python3 cannot find the installed DiscoPoP. */
export const DISCOPOP_TEMPLATES_VARIABLE = 'DISCOPOP_PATCH_REPAIR_PROMPTS';

export interface DiscopopTemplates {
  dir: string;
  /** How it was found, for the warning that says which templates a run used. */
  foundBy: string;
}

// find_spec locates the package without importing it, so none of DiscoPoP's code runs here.
const LOCATE_PACKAGE = [
  'import importlib.util',
  "spec = importlib.util.find_spec('discopop_library')",
  "print(spec.submodule_search_locations[0] if spec and spec.submodule_search_locations else '')",
].join('\n');

/**
 * The folder named by $DISCOPOP_PATCH_REPAIR_PROMPTS, else `PatchRepair/prompts/` beside the
 * `discopop_library` package python3 would import; null when neither exists.
 */
export async function locateDiscopopTemplates(env: NodeJS.ProcessEnv): Promise<DiscopopTemplates | null> {
  const named = env[DISCOPOP_TEMPLATES_VARIABLE];
  if (named !== undefined && named !== '') {
    const dir = path.resolve(named);
    if (!(await isFolder(dir))) throw new UsageError(`$${DISCOPOP_TEMPLATES_VARIABLE}=${named}: no such folder`);
    return { dir, foundBy: `$${DISCOPOP_TEMPLATES_VARIABLE}` };
  }
  const outcome = await runProcess({
    command: 'python3',
    args: ['-c', LOCATE_PACKAGE],
    cwd: '/',
    env,
    extendEnv: false,
    timeoutMs: 20_000,
  });
  if (outcome.kind !== 'exited' || outcome.exitCode !== 0) return null;
  const packageDir = outcome.stdout.trim();
  if (packageDir === '') return null;
  const dir = path.join(packageDir, 'PatchRepair', 'prompts');
  return (await isFolder(dir)) ? { dir, foundBy: `python3 (discopop_library at ${packageDir})` } : null;
}

async function isFolder(dir: string): Promise<boolean> {
  return stat(dir).then(
    (info) => info.isDirectory(),
    () => false,
  );
}
