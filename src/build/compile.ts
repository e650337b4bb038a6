// Runs the configuration's compile.sh inside a workspace the way DiscoPoP's project manager runs
// it in its copy of the project: the parent environment plus every settings key,
// DP_PROJECT_ROOT_DIR and DOT_DISCOPOP pointing into the copy, OMP_NUM_THREADS; in the
// per-configuration layout from the configuration folder (inside the copy), in the shared layout
// as `/bin/bash <script>` from the copy's root (formats.md §1.8).
import { access, constants } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { DotDiscopop } from '../formats/types.js';
import type { Launcher, StepOutcome } from './launcher.js';

export interface CompileRequest {
  dp: DotDiscopop;
  launcher: Launcher;
  /** What is built (a suggestion id, `reference`); names the step where the launcher shows it. */
  label: string;
  workspaceRoot: string;
  threads: number;
  timeoutMs: number;
  signal: AbortSignal;
  /** Set over the layout's environment (the reference build's compiler recorder). */
  extraEnv?: Record<string, string>;
  /** A command the script runs under (`setarch x86_64 -R` for a --check-races run). */
  commandPrefix?: readonly string[];
}

export interface CompileLayout {
  script: string;
  cwd: string;
  env: Record<string, string>;
}

/** Where compile.sh and its folder are in the workspace, and the environment it gets. */
export function compileLayout(o: { dp: DotDiscopop; workspaceRoot: string; threads: number }): CompileLayout {
  const { dp, workspaceRoot } = o;
  const inWorkspace = (abs: string) => join(workspaceRoot, workspacePath(dp, abs));
  return {
    script: inWorkspace(dp.config.compileScript),
    cwd: dp.config.layout === 'shared' ? workspaceRoot : inWorkspace(dp.config.dir),
    env: {
      ...dp.config.settings,
      DP_PROJECT_ROOT_DIR: workspaceRoot,
      DOT_DISCOPOP: inWorkspace(dp.dotDir),
      OMP_NUM_THREADS: String(o.threads),
    },
  };
}

/** Where the .discopop folder sits in a workspace when it is not inside the project root (--project-root). */
export const OUTSIDE_DOT_DISCOPOP = '.discopop';

/**
 * The relative path in a workspace of a file of the project or of its .discopop folder: a
 * .discopop outside the project root is copied to `.discopop` in the workspace, where DiscoPoP's
 * own copies keep it.
 */
export function workspacePath(dp: Pick<DotDiscopop, 'projectRoot' | 'dotDir'>, abs: string): string {
  const inProject = relative(dp.projectRoot, abs);
  return leavesRoot(inProject) ? join(OUTSIDE_DOT_DISCOPOP, relative(dp.dotDir, abs)) : inProject;
}

/** The .discopop folder is not inside the project root, so workspaces carry a copy of it. */
export function dotDiscopopOutside(dp: Pick<DotDiscopop, 'projectRoot' | 'dotDir'>): boolean {
  return leavesRoot(relative(dp.projectRoot, dp.dotDir));
}

/** A relative path that leaves the folder it is relative to. */
export function leavesRoot(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

export function runCompileScript(request: CompileRequest): Promise<StepOutcome> {
  return runConfigurationScript(request, compileLayout(request).script);
}

/**
 * compile.sh or execute.sh, with compile.sh's folder and environment. stderr is merged into stdout
 * by the shell so the output reads in the order it was written (make's command lines next to gcc's
 * errors). A script without the execute bit is run with bash, as DiscoPoP's newer project manager
 * does, rather than failing on a permission error.
 */
export async function runConfigurationScript(request: CompileRequest, script: string): Promise<StepOutcome> {
  const { cwd, env } = compileLayout(request);
  const executable =
    request.dp.config.layout === 'per-configuration' &&
    (await access(script, constants.X_OK).then(
      () => true,
      () => false,
    ));
  const command = executable
    ? [script]
    : request.dp.config.layout === 'shared'
      ? ['/bin/bash', script]
      : ['bash', script];
  return request.launcher.run({
    label: request.label,
    command: ['sh', '-c', 'exec "$@" 2>&1', 'sh', ...(request.commandPrefix ?? []), ...command],
    cwd,
    env: { ...env, ...request.extraEnv },
    timeoutMs: request.timeoutMs,
    signal: request.signal,
  });
}
