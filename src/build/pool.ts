// The build stage as pipeline/ sees it: parallel, incremental builds in private workspaces. The
// façade puts together the queue of workspaces and builds (queue.ts), the reference build that
// opens it (reference.ts) and the one-off isolated builds (isolated.ts); screening and
// confirmation (screening/) are discovery's use of the queue.
import { setMaxListeners } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Emit } from '../formats/events.js';
import type { BuildResult, DotDiscopop, PatchSet } from '../formats/types.js';
import type { IsolatedBuild, IsolatedBuildRequest, ProgramRunner } from '../formats/outcome.js';
import type { RecordedCompiles } from './compiler-record.js';
import { IsolatedBuilds } from './isolated.js';
import { createLauncher, type Launcher } from './launcher.js';
import type { ConfiguredFolder } from './location.js';
import { Workspaces, type WorkspacePlacement } from './placement.js';
import type { BuildEvents, BuildPurpose, PoolContext } from './pool-jobs.js';
import { programOf } from './program.js';
import { BuildQueue, type BuildRequest } from './queue.js';
import { referenceBuildIn, runReferenceBuild } from './reference.js';
import type { Workspace } from './workspace.js';

export { LAUNCH_RETRIES, type BuildPurpose } from './pool-jobs.js';

export interface BuildPoolOptions {
  dp: DotDiscopop;
  /** The run's scratch folder; the pool works in a folder of its own below it. */
  scratchDir: string;
  jobs: number;
  /** OMP_NUM_THREADS for compile.sh. */
  threads: number;
  /** For one build: applying the patch set and compile.sh together. */
  timeoutMs: number;
  signal: AbortSignal;
  emit: Emit;
  /** `--exclude` globs, relative to the project root: left out of every workspace. */
  exclude?: readonly string[];
  /** Where compile.sh runs; by default on this machine. */
  launcher?: Launcher;
}

export class BuildPool {
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly controller = new AbortController();
  private readonly ctx: PoolContext;
  private readonly builds: BuildQueue;
  private readonly isolated: IsolatedBuilds;
  private reference?: Promise<BuildResult>;
  private recorded: RecordedCompiles = { ok: false, reason: 'the reference build has not run' };
  private disposed?: Promise<void>;

  private constructor(
    private readonly o: BuildPoolOptions,
    /** The pool's own folder under the scratch folder; dispose() removes it. */
    readonly root: string,
    private readonly workspaces: Workspaces,
    first: Workspace,
  ) {
    const signal = this.controller.signal;
    this.ctx = {
      dp: o.dp,
      launcher: o.launcher ?? createLauncher({ name: 'local', args: [], runId: '' }),
      threads: o.threads,
      timeoutMs: o.timeoutMs,
      emit: o.emit,
      root,
      signal,
      retries: { signal, emit: o.emit },
      track: (promise) => this.track(promise),
    };
    this.builds = new BuildQueue(this.ctx, workspaces, this.jobs, {
      workspace: first,
      sources: workspaces.userTreeSources(),
    });
    this.isolated = new IsolatedBuilds(this.ctx, workspaces, this.jobs, () => this.referenceBuild());
    // One listener per build in flight, removed when it ends; -j may well exceed Node's default of 10.
    setMaxListeners(0, signal);
    const onAbort = () => {
      this.controller.abort(o.signal.reason);
      this.dispose().catch(() => undefined);
    };
    if (o.signal.aborted) onAbort();
    else o.signal.addEventListener('abort', onAbort, { once: true });
  }

  /** Copies the project (without .discopop/patch_repair/) into the first workspace. */
  static async create(o: BuildPoolOptions): Promise<BuildPool> {
    o.signal.throwIfAborted();
    await mkdir(o.scratchDir, { recursive: true });
    const root = await mkdtemp(join(o.scratchDir, 'builds-'));
    try {
      const workspaces = await Workspaces.scan({
        dp: o.dp,
        scratchDir: o.scratchDir,
        root,
        exclude: o.exclude ?? [],
        emit: o.emit,
      });
      return new BuildPool(o, root, workspaces, await workspaces.userTree('w0'));
    } catch (error) {
      await rm(root, { recursive: true, force: true });
      // An interrupt during the copy surfaces as whatever file operation it cut short.
      o.signal.throwIfAborted();
      throw error;
    }
  }

  get jobs(): number {
    return Math.max(1, this.o.jobs);
  }

  /** How the workspaces got their reference state; undefined until the reference build passed. */
  get workspacePlacement(): WorkspacePlacement | undefined {
    return this.workspaces.placementWith(this.builds.workspaceCount);
  }

  /**
   * After a reference build that failed, or said a build folder was configured elsewhere: build
   * folders of the user's tree configured at the project's own path (a CMakeCache.txt naming it,
   * say), which cannot work in a copy.
   */
  get foldersConfiguredInProject(): readonly ConfiguredFolder[] {
    return this.workspaces.foldersConfiguredInProject;
  }

  /** The project without any suggestion. Runs once; later calls return the same result. */
  referenceBuild(): Promise<BuildResult> {
    this.reference ??= this.track(this.runReference());
    return this.reference;
  }

  /** The compiler calls of the reference build, for screens and for preprocessing a source as the build compiled it. */
  async recordedCompiles(): Promise<RecordedCompiles> {
    await this.referenceBuild();
    return this.recorded;
  }

  /** Builds the project with `patchSet` applied, in isolation. Waits for the reference build. */
  build(id: string, patchSet: PatchSet, purpose: BuildPurpose, events: BuildEvents = 'all'): Promise<BuildResult> {
    return this.queue({ id, patchSet, purpose, events });
  }

  /** The same build; when it passed, `then` runs the program in its workspace before that is rolled back. */
  async buildThen<T>(
    id: string,
    patchSet: PatchSet,
    purpose: BuildPurpose,
    then: (program: ProgramRunner) => Promise<T>,
  ): Promise<{ build: BuildResult; ran: T | null }> {
    const passed = (workspaceRoot: string) => then(programOf(this.ctx, workspaceRoot, id));
    const { build, ran } = await this.queued({ id, patchSet, purpose, events: 'all', passed });
    return { build, ran: build.ok ? (ran as T) : null };
  }

  /** Any build of the queue (a screen, a confirmation: screening/), once the reference build has run. */
  async queue(request: BuildRequest): Promise<BuildResult> {
    return (await this.queued(request)).build;
  }

  /** Hands `then` a workspace holding the reference build (the project without any suggestion). */
  async withReferenceProgram<T>(then: (program: ProgramRunner) => Promise<T>): Promise<T> {
    await this.referenceBuild();
    return this.builds.visit((workspaceRoot) => then(programOf(this.ctx, workspaceRoot, 'reference')));
  }

  /** --check-run's reference with settings other than the suggestions' (isolated.ts). */
  withSequentialProgram<T>(
    settings: Record<string, string>,
    then: (program: ProgramRunner) => Promise<T>,
  ): Promise<{ build: BuildResult; ran: T | null }> {
    return this.isolated.withSequentialProgram(settings, then);
  }

  /** A clean build with other settings in a workspace of its own (isolated.ts). */
  isolatedBuildThen<T>(
    o: IsolatedBuildRequest,
    then: (program: ProgramRunner, built: IsolatedBuild) => Promise<T>,
  ): Promise<{ build: BuildResult; ran: T | null }> {
    return this.isolated.isolatedBuildThen(o, then);
  }

  /** Stops what runs (process groups are killed) and removes every workspace. Idempotent. */
  dispose(): Promise<void> {
    this.disposed ??= this.teardown();
    return this.disposed;
  }

  private async queued(request: BuildRequest): Promise<{ build: BuildResult; ran: unknown }> {
    await this.referenceBuild();
    return this.builds.build(request);
  }

  private async runReference(): Promise<BuildResult> {
    const { result, sources, recorded } = await runReferenceBuild(this.ctx, this.workspaces, this.builds.first);
    this.recorded = recorded;
    this.builds.open({
      sources,
      rebuild: (workspace) => referenceBuildIn(this.ctx, this.workspaces, workspace),
    });
    return result;
  }

  private async teardown(): Promise<void> {
    if (!this.controller.signal.aborted) this.controller.abort(new Error('build pool disposed'));
    this.builds.rejectWaiting();
    await Promise.allSettled([...this.inFlight]);
    await this.ctx.launcher.cancelAll((message) => this.o.emit({ type: 'notice', level: 'warning', message }));
    await rm(this.root, { recursive: true, force: true });
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise);
    const forget = () => this.inFlight.delete(promise);
    promise.then(forget, forget);
    return promise;
  }
}
