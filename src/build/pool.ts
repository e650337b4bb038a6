// Parallel, incremental builds in private workspaces. The reference build (no suggestion) runs
// first in workspace 0; further workspaces (up to `jobs`) are made when there is work waiting for
// them, placed as placement.ts decides. Each build applies one patch set in an idle workspace, runs
// compile.sh and rolls the workspace back to its reference state (see workspace.ts).
import { setMaxListeners } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Emit } from '../formats/events.js';
import type { BuildResult, DotDiscopop, PatchSet } from '../formats/types.js';
import { faultPoint } from '../fault.js';
import type { IsolatedBuild, IsolatedBuildRequest, ProgramRunner } from '../formats/outcome.js';
import { patchWorkspace } from './apply.js';
import { runCompileScript } from './compile.js';
import { programIn } from './program.js';
import {
  makeCompilerRecorder,
  readRecordedCompiles,
  type CompilerRecorder,
  type RecordedCompiles,
} from './compiler-record.js';
import { createLauncher, type Launcher } from './launcher.js';
import { compileResult, patchFailure, patchNotes } from './result.js';
import type { ConfiguredFolder } from './location.js';
import { rootSpellings, Workspaces, type WorkspacePlacement } from './placement.js';
import { referenceSourceOf, type Workspace, type ReferenceSources } from './workspace.js';
import { Slots } from './slots.js';
import {
  buildFinished,
  withLaunchRetries,
  type BuildEvents,
  type BuildPurpose,
  type Job,
  type LaunchFailed,
  type LaunchRetries,
  type ReferenceRunJob,
  type Worker,
} from './pool-jobs.js';
import { keepObjects, runRecordedCompiles } from './screen.js';
import type { RecordedCompile } from './compiler-record.js';

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
  private readonly workers: Worker[] = [];
  private readonly queue: (Job | ReferenceRunJob)[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly controller = new AbortController();
  private cloning = 0;
  private reference?: Promise<BuildResult>;
  private recorded: RecordedCompiles = { ok: false, reason: 'the reference build has not run' };
  /** By suggestion: the objects its passed screen compiled, kept for its confirmation build. */
  private readonly screenOutputs = new Map<string, { rel: string; from: string }[]>();
  /** Workspace 0's reference outputs; set once the reference build has finished. */
  private sources?: ReferenceSources;
  /** A workspace could not be made: do not try again for every job that finishes. */
  private cloneFailed = false;
  private disposed?: Promise<void>;
  private readonly launcher: Launcher;
  private readonly isolatedSlots: Slots;
  private readonly retries: LaunchRetries;

  private constructor(
    private readonly o: BuildPoolOptions,
    /** The pool's own folder under the scratch folder; dispose() removes it. */
    readonly root: string,
    private readonly workspaces: Workspaces,
  ) {
    this.launcher = o.launcher ?? createLauncher({ name: 'local', args: [], runId: '' });
    this.isolatedSlots = new Slots(Math.max(1, o.jobs));
    this.retries = { signal: this.controller.signal, emit: o.emit };
    // One listener per build in flight, removed when it ends; -j may well exceed Node's default of 10.
    setMaxListeners(0, this.controller.signal);
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
      const pool = new BuildPool(o, root, workspaces);
      const workspace = await workspaces.userTree('w0');
      pool.workers.push({
        workspace,
        patchDir: join(root, 'w0', 'patches'),
        busy: false,
        sources: workspaces.userTreeSources(),
      });
      return pool;
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
    return this.workspaces.placementWith(this.workers.length);
  }

  /**
   * After a reference build that failed, or said a build folder was configured elsewhere: build
   * folders of the user's tree configured at the project's own path (a CMakeCache.txt naming it,
   * say), which cannot work in a copy.
   */
  get foldersConfiguredInProject(): readonly ConfiguredFolder[] {
    return this.workspaces.foldersConfiguredInProject;
  }

  /** The compiler calls of the reference build, for preprocessing a source as the build compiled it. */
  async recordedCompiles(): Promise<RecordedCompiles> {
    await this.referenceBuild();
    return this.recorded;
  }

  /** The project without any suggestion. Runs once; later calls return the same result. */
  referenceBuild(): Promise<BuildResult> {
    this.reference ??= this.track(this.runReference());
    return this.reference;
  }

  /** Builds the project with `patchSet` applied, in isolation. Waits for the reference build. */
  async build(
    id: string,
    patchSet: PatchSet,
    purpose: BuildPurpose,
    events: BuildEvents = 'all',
  ): Promise<BuildResult> {
    return (await this.enqueue({ id, patchSet, purpose, events })).build;
  }

  /** `patchSet` applied, then the changed units' recorded compiles instead of compile.sh. */
  async screen(
    id: string,
    patchSet: PatchSet,
    commands: readonly RecordedCompile[],
    events: BuildEvents,
  ): Promise<BuildResult> {
    return (await this.enqueue({ id, patchSet, purpose: 'discovery', commands, events })).build;
  }

  /** Builds with compile.sh, the objects of these suggestions' passed screens in place. */
  async confirm(label: string, patchSet: PatchSet, screened: readonly string[]): Promise<BuildResult> {
    const outputs = screened.flatMap((id) => this.screenOutputs.get(id) ?? []);
    return (await this.enqueue({ id: label, patchSet, purpose: 'discovery', events: 'none', outputs })).build;
  }

  /** The same build; when it passed, `then` runs the program in its workspace before that is rolled back. */
  async buildThen<T>(
    id: string,
    patchSet: PatchSet,
    purpose: BuildPurpose,
    then: (program: ProgramRunner) => Promise<T>,
  ): Promise<{ build: BuildResult; ran: T | null }> {
    const { build, ran } = await this.enqueue({ id, patchSet, purpose, then, events: 'all' });
    return { build, ran: build.ok ? (ran as T) : null };
  }

  /** Hands `then` a workspace holding the reference build (the project without any suggestion). */
  async withReferenceProgram<T>(then: (program: ProgramRunner) => Promise<T>): Promise<T> {
    await this.referenceBuild();
    this.controller.signal.throwIfAborted();
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ then, resolve: resolve as (ran: unknown) => void, reject });
      this.pump();
    });
  }

  /** --check-run's reference with settings other than the suggestions': an isolated build (below) of no patch set. */
  async withSequentialProgram<T>(
    settings: Record<string, string>,
    then: (program: ProgramRunner) => Promise<T>,
  ): Promise<{ build: BuildResult; ran: T | null }> {
    return this.isolatedBuildThen(
      { folder: 'sequential', label: 'sequential', settings, patchSet: new Map(), threads: 1 },
      (program) => then(program),
    );
  }

  /**
   * A clean build of the user's tree with `patchSet` applied and other `settings` (the sequential
   * reference, a --check-races build), in a workspace of its own removed afterwards: an
   * incremental workspace would not rebuild under other flags. At most -j of them at once.
   * `then` runs the program there when the build passed, told where and which lines the set added.
   */
  async isolatedBuildThen<T>(
    o: IsolatedBuildRequest,
    then: (program: ProgramRunner, built: IsolatedBuild) => Promise<T>,
  ): Promise<{ build: BuildResult; ran: T | null }> {
    await this.referenceBuild();
    this.controller.signal.throwIfAborted();
    await this.isolatedSlots.acquire(this.controller.signal);
    try {
      return await this.track(this.isolatedBuild(o, then));
    } finally {
      this.isolatedSlots.release();
    }
  }

  private async isolatedBuild<T>(
    o: IsolatedBuildRequest,
    then: (program: ProgramRunner, built: IsolatedBuild) => Promise<T>,
  ): Promise<{ build: BuildResult; ran: T | null }> {
    const dp = { ...this.o.dp, config: { ...this.o.dp.config, settings: o.settings } };
    const signal = this.controller.signal;
    try {
      const workspace = await this.workspaces.userTree(o.folder);
      const started = Date.now();
      const applied = await patchWorkspace({
        dp,
        patchSet: o.patchSet,
        workspaceRoot: workspace.root,
        patchDir: join(this.root, o.folder, 'patches'),
        timeoutMs: this.o.timeoutMs,
        signal,
      });
      if (!applied.ok)
        return {
          build: patchFailure({
            dp,
            output: applied.output,
            failures: applied.failures,
            workspaceRoot: workspace.root,
            durationMs: Date.now() - started,
          }),
          ran: null,
        };
      const outcome = await withLaunchRetries(this.retries, `the ${o.label} build`, () =>
        runCompileScript({
          dp,
          launcher: this.launcher,
          label: o.label,
          workspaceRoot: workspace.root,
          threads: o.threads,
          timeoutMs: this.o.timeoutMs,
          signal,
        }),
      );
      faultPoint('build.isolated-after-compile');
      if (outcome.kind === 'canceled') signal.throwIfAborted();
      const build = compileResult({
        dp,
        outcome,
        workspaceRoot: workspace.root,
        timeoutMs: this.o.timeoutMs,
        durationMs: Date.now() - started,
      });
      const added = new Map(
        [...applied.added].flatMap(([fileId, lines]) => {
          const file = dp.files.get(fileId);
          return file ? [[file.relPath, lines] as const] : [];
        }),
      );
      return {
        build,
        ran: build.ok
          ? await then(this.programIn(workspace.root, o.label, dp), {
              workspaceRoot: workspace.root,
              added,
              scratch: join(this.root, o.folder),
            })
          : null,
      };
    } finally {
      await rm(join(this.root, o.folder), { recursive: true, force: true });
    }
  }

  private async enqueue(job: Omit<Job, 'resolve' | 'reject'>): Promise<{ build: BuildResult; ran: unknown }> {
    await this.referenceBuild();
    this.controller.signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      const queued = { ...job, resolve, reject };
      if (job.purpose === 'probe') this.queue.unshift(queued);
      else this.queue.push(queued);
      this.pump();
    });
  }

  /** Stops what runs (process groups are killed) and removes every workspace. Idempotent. */
  dispose(): Promise<void> {
    this.disposed ??= this.teardown();
    return this.disposed;
  }

  private async teardown(): Promise<void> {
    if (!this.controller.signal.aborted) this.controller.abort(new Error('build pool disposed'));
    this.rejectQueued();
    await Promise.allSettled([...this.inFlight]);
    await this.launcher.cancelAll((message) => this.o.emit({ type: 'notice', level: 'warning', message }));
    await rm(this.root, { recursive: true, force: true });
  }

  private async runReference(): Promise<BuildResult> {
    const worker = this.workers[0] as Worker;
    worker.busy = true;
    const recorder = this.launcher.name === 'local' ? await this.compilerRecorder() : undefined;
    const result = await this.referenceBuildIn(worker.workspace, recorder?.env);
    this.recorded = recorder
      ? await readRecordedCompiles(recorder, {
          workspaceRoots: await rootSpellings(worker.workspace.root),
          projectRoot: this.o.dp.projectRoot,
        })
      : { ok: false, reason: 'the reference build ran through Slurm, where its compiler calls are not recorded' };
    worker.sources = await this.workspaces.settleFirst(worker.workspace, result);
    this.sources = worker.sources;
    worker.busy = false;
    this.pump();
    return result;
  }

  private compilerRecorder(): Promise<CompilerRecorder> {
    const settings = this.o.dp.config.settings;
    return makeCompilerRecorder(join(this.root, 'compiler-record'), {
      searchPath: settings['PATH'] ?? process.env['PATH'] ?? '',
      settings,
    });
  }

  /** compile.sh with no suggestion applied, reported as a reference build. */
  private async referenceBuildIn(workspace: Workspace, extraEnv?: Record<string, string>): Promise<BuildResult> {
    this.o.emit({ type: 'build-started', id: null, purpose: 'reference' });
    const started = Date.now();
    const signal = this.controller.signal;
    const outcome = await withLaunchRetries(this.retries, 'the reference build', async () => {
      const step = await runCompileScript({
        dp: this.o.dp,
        launcher: this.launcher,
        label: 'reference',
        workspaceRoot: workspace.root,
        threads: this.o.threads,
        timeoutMs: this.o.timeoutMs,
        signal,
        ...(extraEnv && { extraEnv }),
      });
      // Nothing but the user's tree is in the workspace yet: a half-done step is undone from there.
      if (step.kind === 'launch-failed') await workspace.rollback(this.workspaces.projectSource());
      return step;
    });
    if (outcome.kind === 'canceled') signal.throwIfAborted();
    const result = compileResult({
      dp: this.o.dp,
      outcome,
      workspaceRoot: workspace.root,
      timeoutMs: this.o.timeoutMs,
      durationMs: Date.now() - started,
    });
    this.o.emit(buildFinished(null, 'reference', result));
    return result;
  }

  private pump(): void {
    if (this.controller.signal.aborted) return this.rejectQueued();
    if (!this.sources) return;
    for (;;) {
      const worker = this.workers.find((w) => !w.busy);
      const job = worker && this.queue.shift();
      if (!worker || !job) break;
      worker.busy = true;
      void this.track(this.runJob(worker, job));
    }
    const wanted = this.cloneFailed
      ? 0
      : Math.min(this.queue.length, Math.max(1, this.o.jobs) - this.workers.length - this.cloning);
    for (let i = 0; i < wanted; i++) {
      this.track(this.addClone()).catch((error: unknown) => {
        // Fewer workspaces only means fewer builds at once; the run goes on with those it has.
        this.cloneFailed = true;
        if (!this.controller.signal.aborted) {
          this.o.emit({
            type: 'notice',
            level: 'warning',
            message: `could not prepare another build workspace: ${(error as Error).message}`,
          });
        }
      });
    }
  }

  private async addClone(): Promise<void> {
    const index = this.workers.length + this.cloning;
    this.cloning++;
    try {
      const first = { workspace: (this.workers[0] as Worker).workspace, sources: this.sources as ReferenceSources };
      const placed = await this.workspaces.further(index, first, (workspace) => this.referenceBuildIn(workspace));
      this.workers.push({ ...placed, patchDir: join(this.root, `w${index}`, 'patches'), busy: false });
    } finally {
      this.cloning--;
    }
    this.pump();
  }

  private async runJob(worker: Worker, job: Job | ReferenceRunJob): Promise<void> {
    try {
      if (!('id' in job)) {
        job.resolve(await this.referenceRunIn(worker, job.then));
        return;
      }
      if (job.events !== 'none')
        this.o.emit({ type: 'build-started', id: job.purpose === 'probe' ? null : job.id, purpose: job.purpose });
      const what = job.purpose === 'probe' ? 'the OpenMP probe build' : `the build of suggestion ${job.id}`;
      let ran: unknown = null;
      const result = await withLaunchRetries(this.retries, what, () =>
        this.buildIn(worker, job, job.then && (async (program) => void (ran = await job.then!(program)))),
      );
      if (job.events === 'all')
        this.o.emit(buildFinished(job.purpose === 'probe' ? null : job.id, job.purpose, result));
      job.resolve({ build: result, ran });
    } catch (error) {
      job.reject(error);
    } finally {
      worker.busy = false;
      this.pump();
    }
  }

  /**
   * One build in `worker`, rolled back afterwards. A step Slurm could not run comes back as
   * `launch-failed` with the workspace rolled back, so it can be tried again from the start.
   */
  private async buildIn(
    worker: Worker,
    job: Job,
    then?: (program: ProgramRunner) => Promise<void>,
  ): Promise<BuildResult | LaunchFailed> {
    const { dp, threads } = this.o;
    const { id: label, patchSet, commands } = job;
    const signal = this.controller.signal;
    const workspaceRoot = worker.workspace.root;
    const started = Date.now();
    const remaining = () => Math.max(1, started + this.o.timeoutMs - Date.now());
    try {
      const applied = await patchWorkspace({
        dp,
        patchSet,
        workspaceRoot,
        patchDir: worker.patchDir,
        timeoutMs: remaining(),
        signal,
      });
      if (!applied.ok) {
        return patchFailure({
          dp,
          output: applied.output,
          failures: applied.failures,
          workspaceRoot,
          durationMs: Date.now() - started,
        });
      }
      const stamp = await worker.workspace.markChanged(applied.changed);
      if (job.outputs && job.outputs.length > 0) await worker.workspace.placeOutputs(job.outputs, stamp);
      faultPoint('build.after-patch');
      const timeoutMs = remaining();
      const step = { dp, launcher: this.launcher, label, workspaceRoot, threads, timeoutMs, signal };
      const outcome = await (commands ? runRecordedCompiles({ ...step, commands }) : runCompileScript(step));
      faultPoint('build.after-compile');
      if (outcome.kind === 'canceled') signal.throwIfAborted();
      if (outcome.kind === 'launch-failed') return outcome;
      // The message names the limit the user set, not what was left of it after patching.
      const result = compileResult({
        dp,
        outcome,
        workspaceRoot,
        timeoutMs: this.o.timeoutMs,
        durationMs: Date.now() - started,
        patchNotes: patchNotes(applied.output),
        added: applied.added,
        directives: applied.directives,
      });
      if (result.ok && then) await then(this.programIn(workspaceRoot, label));
      if (result.ok && commands) await this.keepScreenOutputs(label, commands, workspaceRoot);
      return result;
    } finally {
      // After an abort the workspace is about to be deleted; restoring it would only delay that.
      if (!signal.aborted) await worker.workspace.rollback(referenceSourceOf(worker.sources));
    }
  }

  /** A passed screen's objects, kept only where all workspaces copy one reference build's outputs (not path-dependent ones). */
  private async keepScreenOutputs(
    id: string,
    commands: readonly RecordedCompile[],
    workspaceRoot: string,
  ): Promise<void> {
    if (this.workspacePlacement?.outputs !== 'copied') return;
    this.screenOutputs.set(
      id,
      await keepObjects(commands, {
        projectRoot: this.o.dp.projectRoot,
        workspaceRoot,
        stash: join(this.root, 'screened', id),
      }),
    );
  }

  /** The reference program's runs in an idle worker; whatever they write is rolled back. */
  private async referenceRunIn(worker: Worker, then: (program: ProgramRunner) => Promise<unknown>): Promise<unknown> {
    try {
      return await then(this.programIn(worker.workspace.root, 'reference'));
    } finally {
      if (!this.controller.signal.aborted) await worker.workspace.rollback(referenceSourceOf(worker.sources));
    }
  }

  /** execute.sh in `workspaceRoot`, then validate.sh when there is one (program.ts); a step Slurm could not start is tried again. */
  private programIn(workspaceRoot: string, label: string, dp: DotDiscopop = this.o.dp): ProgramRunner {
    return programIn({
      dp,
      launcher: this.launcher,
      workspaceRoot,
      label,
      threads: this.o.threads,
      timeoutMs: this.o.timeoutMs,
      retries: this.retries,
    });
  }

  private rejectQueued(): void {
    const reason = this.controller.signal.reason;
    for (const job of this.queue.splice(0)) job.reject(reason);
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise);
    const forget = () => this.inFlight.delete(promise);
    promise.then(forget, forget);
    return promise;
  }
}
