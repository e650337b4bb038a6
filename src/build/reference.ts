// The reference build: compile.sh with no suggestion applied, in the first workspace, with the
// compiler recorder's wrappers first on PATH when it runs on this machine (compiler-record.ts), so
// screens and the built-in repairer know how each unit was compiled. Its outputs become every
// workspace's reference state (placement.ts).
import { join } from 'node:path';
import type { BuildResult } from '../formats/types.js';
import { runCompileScript } from './compile.js';
import { makeCompilerRecorder, readRecordedCompiles, type RecordedCompiles } from './compiler-record.js';
import { rootSpellings, type Workspaces } from './placement.js';
import { buildFinished, withLaunchRetries, type PoolContext } from './pool-jobs.js';
import { compileResult } from './result.js';
import type { ReferenceSources, Workspace } from './workspace.js';

export interface ReferenceOutcome {
  result: BuildResult;
  /** Where the first workspace's rollbacks read the reference bytes. */
  sources: ReferenceSources;
  recorded: RecordedCompiles;
}

/** The first reference build, recorded, and its outputs kept aside for the first workspace's rollbacks. */
export async function runReferenceBuild(
  ctx: PoolContext,
  workspaces: Workspaces,
  workspace: Workspace,
): Promise<ReferenceOutcome> {
  const recorder = ctx.launcher.name === 'local' ? await compilerRecorder(ctx) : undefined;
  const result = await referenceBuildIn(ctx, workspaces, workspace, recorder?.env);
  const recorded: RecordedCompiles = recorder
    ? await readRecordedCompiles(recorder, {
        workspaceRoots: await rootSpellings(workspace.root),
        projectRoot: ctx.dp.projectRoot,
      })
    : { ok: false, reason: 'the reference build ran through Slurm, where its compiler calls are not recorded' };
  const sources = await workspaces.settleFirst(workspace, result);
  return { result, sources, recorded };
}

function compilerRecorder(ctx: PoolContext) {
  const settings = ctx.dp.config.settings;
  return makeCompilerRecorder(join(ctx.root, 'compiler-record'), {
    searchPath: settings['PATH'] ?? process.env['PATH'] ?? '',
    settings,
  });
}

/**
 * compile.sh with no suggestion applied, reported as a reference build: the first one, and that of
 * every further workspace whose reference outputs cannot be copied.
 */
export async function referenceBuildIn(
  ctx: PoolContext,
  workspaces: Workspaces,
  workspace: Workspace,
  extraEnv?: Record<string, string>,
): Promise<BuildResult> {
  ctx.emit({ type: 'build-started', id: null, purpose: 'reference' });
  const started = Date.now();
  const { signal } = ctx;
  const outcome = await withLaunchRetries(ctx.retries, 'the reference build', async () => {
    const step = await runCompileScript({
      dp: ctx.dp,
      launcher: ctx.launcher,
      label: 'reference',
      workspaceRoot: workspace.root,
      threads: ctx.threads,
      timeoutMs: ctx.timeoutMs,
      signal,
      ...(extraEnv && { extraEnv }),
    });
    // Nothing but the user's tree is in the workspace yet: a half-done step is undone from there.
    if (step.kind === 'launch-failed') await workspace.rollback(workspaces.projectSource());
    return step;
  });
  if (outcome.kind === 'canceled') signal.throwIfAborted();
  const result = compileResult({
    dp: ctx.dp,
    outcome,
    workspaceRoot: workspace.root,
    timeoutMs: ctx.timeoutMs,
    durationMs: Date.now() - started,
  });
  ctx.emit(buildFinished(null, 'reference', result));
  return result;
}
