// One-off clean builds of the user's tree with other settings (the sequential reference of
// --check-run, the --check-races builds), each in a workspace of its own removed afterwards: an
// incremental workspace would not rebuild under other flags. At most `jobs` of them at once, none
// before the reference build has finished.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { faultPoint } from '../fault.js';
import type { IsolatedBuild, IsolatedBuilder, IsolatedBuildRequest, ProgramRunner } from '../formats/outcome.js';
import type { BuildResult } from '../formats/types.js';
import { patchWorkspace } from './apply.js';
import { runCompileScript } from './compile.js';
import type { Workspaces } from './placement.js';
import { withLaunchRetries, type PoolContext } from './pool-jobs.js';
import { programOf } from './program.js';
import { compileResult, patchFailure } from './result.js';
import { Slots } from './slots.js';

export class IsolatedBuilds implements IsolatedBuilder {
  private readonly slots: Slots;

  constructor(
    private readonly ctx: PoolContext,
    private readonly workspaces: Workspaces,
    jobs: number,
    /** Resolves once the reference build has finished. */
    private readonly referenceBuilt: () => Promise<unknown>,
  ) {
    this.slots = new Slots(jobs);
  }

  /** --check-run's reference with settings other than the suggestions': an isolated build of no patch set. */
  withSequentialProgram<T>(
    settings: Record<string, string>,
    then: (program: ProgramRunner) => Promise<T>,
  ): Promise<{ build: BuildResult; ran: T | null }> {
    return this.isolatedBuildThen(
      { folder: 'sequential', label: 'sequential', settings, patchSet: new Map(), threads: 1 },
      (program) => then(program),
    );
  }

  /**
   * The user's tree with `o.patchSet` applied, built with `o.settings`; `then` runs the program
   * there when the build passed, told where and which lines the set added.
   */
  async isolatedBuildThen<T>(
    o: IsolatedBuildRequest,
    then: (program: ProgramRunner, built: IsolatedBuild) => Promise<T>,
  ): Promise<{ build: BuildResult; ran: T | null }> {
    await this.referenceBuilt();
    this.ctx.signal.throwIfAborted();
    await this.slots.acquire(this.ctx.signal);
    try {
      return await this.ctx.track(this.buildIn(o, then));
    } finally {
      this.slots.release();
    }
  }

  private async buildIn<T>(
    o: IsolatedBuildRequest,
    then: (program: ProgramRunner, built: IsolatedBuild) => Promise<T>,
  ): Promise<{ build: BuildResult; ran: T | null }> {
    const { ctx } = this;
    const dp = { ...ctx.dp, config: { ...ctx.dp.config, settings: o.settings } };
    const { signal } = ctx;
    const scratch = join(ctx.root, o.folder);
    try {
      const workspace = await this.workspaces.userTree(o.folder);
      const started = Date.now();
      const applied = await patchWorkspace({
        dp,
        patchSet: o.patchSet,
        workspaceRoot: workspace.root,
        patchDir: join(scratch, 'patches'),
        timeoutMs: ctx.timeoutMs,
        signal,
      });
      if (!applied.ok) {
        const build = patchFailure({
          dp,
          output: applied.output,
          failures: applied.failures,
          workspaceRoot: workspace.root,
          durationMs: Date.now() - started,
        });
        return { build, ran: null };
      }
      const outcome = await withLaunchRetries(ctx.retries, `the ${o.label} build`, () =>
        runCompileScript({
          dp,
          launcher: ctx.launcher,
          label: o.label,
          workspaceRoot: workspace.root,
          threads: o.threads,
          timeoutMs: ctx.timeoutMs,
          signal,
        }),
      );
      faultPoint('build.isolated-after-compile');
      if (outcome.kind === 'canceled') signal.throwIfAborted();
      const build = compileResult({
        dp,
        outcome,
        workspaceRoot: workspace.root,
        timeoutMs: ctx.timeoutMs,
        durationMs: Date.now() - started,
      });
      if (!build.ok) return { build, ran: null };
      const added = new Map(
        [...applied.added].flatMap(([fileId, lines]) => {
          const file = dp.files.get(fileId);
          return file ? [[file.relPath, lines] as const] : [];
        }),
      );
      const program = programOf(ctx, workspace.root, o.label, dp);
      return { build, ran: await then(program, { workspaceRoot: workspace.root, added, scratch }) };
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
}
