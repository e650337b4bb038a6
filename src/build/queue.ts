// The queue of builds and the workspaces that run them. Each build applies one patch set in an idle
// workspace, compiles (compile.sh, or the step its request names), and rolls the workspace back to
// its reference state (workspace.ts). Nothing runs before the reference build has opened the
// queue; further workspaces (up to `jobs`) are made while builds wait for them, placed as
// placement.ts decides.
import { join } from 'node:path';
import type { BuildResult, PatchSet } from '../formats/types.js';
import { faultPoint } from '../fault.js';
import { patchWorkspace } from './apply.js';
import { runCompileScript, type CompileRequest } from './compile.js';
import type { StepOutcome } from './launcher.js';
import type { PlacedWorkspace, Workspaces } from './placement.js';
import {
  buildFinished,
  withLaunchRetries,
  type BuildEvents,
  type BuildPurpose,
  type LaunchFailed,
  type PoolContext,
} from './pool-jobs.js';
import { compileResult, patchFailure, patchNotes } from './result.js';
import { referenceSourceOf, type ReferenceSources, type Workspace } from './workspace.js';

/** One build of the queue. */
export interface BuildRequest {
  id: string;
  patchSet: PatchSet;
  purpose: BuildPurpose;
  /** Which of build-started and build-finished the queue emits; the caller emits the rest. */
  events: BuildEvents;
  /** The compile step instead of compile.sh (a screen's recorded compiles, screening/screen.ts). */
  compile?: (request: CompileRequest) => Promise<StepOutcome>;
  /** Objects to place over the patched sources before compiling (see Workspace.placeOutputs). */
  outputs?: readonly { rel: string; from: string }[];
  /** Runs in the workspace before its rollback, only after a build that passed. */
  passed?: (workspaceRoot: string) => Promise<unknown>;
}

interface Worker extends PlacedWorkspace {
  patchDir: string;
  busy: boolean;
}

interface QueuedBuild extends BuildRequest {
  resolve: (result: { build: BuildResult; ran: unknown }) => void;
  reject: (error: unknown) => void;
}

/** Work in an idle workspace that holds the reference build (the reference program's runs). */
interface QueuedVisit {
  visit: (workspaceRoot: string) => Promise<unknown>;
  resolve: (ran: unknown) => void;
  reject: (error: unknown) => void;
}

/** How the queue opens once the reference build has run in the first workspace. */
export interface ReferenceState {
  sources: ReferenceSources;
  /** A further workspace's own reference build, where the outputs hold their folder's path. */
  rebuild: (workspace: Workspace) => Promise<BuildResult>;
}

export class BuildQueue {
  private readonly workers: Worker[];
  private readonly waiting: (QueuedBuild | QueuedVisit)[] = [];
  private cloning = 0;
  /** A workspace could not be made: do not try again for every build that finishes. */
  private cloneFailed = false;
  private opened?: ReferenceState;

  constructor(
    private readonly ctx: PoolContext,
    private readonly workspaces: Workspaces,
    private readonly jobs: number,
    first: PlacedWorkspace,
  ) {
    this.workers = [{ ...first, patchDir: join(ctx.root, 'w0', 'patches'), busy: false }];
  }

  /** The workspace the reference build runs in. */
  get first(): Workspace {
    return (this.workers[0] as Worker).workspace;
  }

  get workspaceCount(): number {
    return this.workers.length;
  }

  /** Builds start from here on; the first workspace rolls back to `state.sources`. */
  open(state: ReferenceState): void {
    (this.workers[0] as Worker).sources = state.sources;
    this.opened = state;
    this.pump();
  }

  /** A probe goes ahead of every build waiting: the run may refuse on its result. */
  build(request: BuildRequest): Promise<{ build: BuildResult; ran: unknown }> {
    this.ctx.signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      const queued = { ...request, resolve, reject };
      if (request.purpose === 'probe') this.waiting.unshift(queued);
      else this.waiting.push(queued);
      this.pump();
    });
  }

  /** `visit` in an idle workspace holding the reference build; whatever it writes is rolled back. */
  visit<T>(visit: (workspaceRoot: string) => Promise<T>): Promise<T> {
    this.ctx.signal.throwIfAborted();
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ visit, resolve: resolve as (ran: unknown) => void, reject });
      this.pump();
    });
  }

  rejectWaiting(): void {
    const reason = this.ctx.signal.reason;
    for (const queued of this.waiting.splice(0)) queued.reject(reason);
  }

  private pump(): void {
    if (this.ctx.signal.aborted) return this.rejectWaiting();
    if (!this.opened) return;
    for (;;) {
      const worker = this.workers.find((w) => !w.busy);
      const queued = worker && this.waiting.shift();
      if (!worker || !queued) break;
      worker.busy = true;
      void this.ctx.track(this.runIn(worker, queued));
    }
    const wanted = this.cloneFailed ? 0 : Math.min(this.waiting.length, this.jobs - this.workers.length - this.cloning);
    for (let i = 0; i < wanted; i++) {
      this.ctx.track(this.addClone(this.opened)).catch((error: unknown) => {
        // Fewer workspaces only means fewer builds at once; the run goes on with those it has.
        this.cloneFailed = true;
        if (!this.ctx.signal.aborted) {
          this.ctx.emit({
            type: 'notice',
            level: 'warning',
            message: `could not prepare another build workspace: ${(error as Error).message}`,
          });
        }
      });
    }
  }

  private async addClone(opened: ReferenceState): Promise<void> {
    const index = this.workers.length + this.cloning;
    this.cloning++;
    try {
      const first = { workspace: this.first, sources: opened.sources };
      const placed = await this.workspaces.further(index, first, opened.rebuild);
      this.workers.push({ ...placed, patchDir: join(this.ctx.root, `w${index}`, 'patches'), busy: false });
    } finally {
      this.cloning--;
    }
    this.pump();
  }

  private async runIn(worker: Worker, queued: QueuedBuild | QueuedVisit): Promise<void> {
    try {
      if ('visit' in queued) queued.resolve(await this.visitIn(worker, queued.visit));
      else queued.resolve(await this.announced(worker, queued));
    } catch (error) {
      queued.reject(error);
    } finally {
      worker.busy = false;
      this.pump();
    }
  }

  private async announced(worker: Worker, request: BuildRequest): Promise<{ build: BuildResult; ran: unknown }> {
    const { ctx } = this;
    const id = request.purpose === 'probe' ? null : request.id;
    if (request.events !== 'none') ctx.emit({ type: 'build-started', id, purpose: request.purpose });
    const what = request.purpose === 'probe' ? 'the OpenMP probe build' : `the build of suggestion ${request.id}`;
    let ran: unknown = null;
    const build = await withLaunchRetries(ctx.retries, what, () =>
      this.buildIn(worker, request, async (workspaceRoot) => void (ran = await request.passed?.(workspaceRoot))),
    );
    if (request.events === 'all') ctx.emit(buildFinished(id, request.purpose, build));
    return { build, ran };
  }

  /**
   * One build in `worker`, rolled back afterwards. A step Slurm could not run comes back as
   * `launch-failed` with the workspace rolled back, so it can be tried again from the start.
   */
  private async buildIn(
    worker: Worker,
    request: BuildRequest,
    passed: (workspaceRoot: string) => Promise<void>,
  ): Promise<BuildResult | LaunchFailed> {
    const { dp, threads, signal, launcher } = this.ctx;
    const { id: label, patchSet } = request;
    const workspaceRoot = worker.workspace.root;
    const started = Date.now();
    const remaining = () => Math.max(1, started + this.ctx.timeoutMs - Date.now());
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
      if (request.outputs && request.outputs.length > 0) await worker.workspace.placeOutputs(request.outputs, stamp);
      faultPoint('build.after-patch');
      const step = { dp, launcher, label, workspaceRoot, threads, timeoutMs: remaining(), signal };
      const outcome = await (request.compile ?? runCompileScript)(step);
      faultPoint('build.after-compile');
      if (outcome.kind === 'canceled') signal.throwIfAborted();
      if (outcome.kind === 'launch-failed') return outcome;
      // The message names the limit the user set, not what was left of it after patching.
      const result = compileResult({
        dp,
        outcome,
        workspaceRoot,
        timeoutMs: this.ctx.timeoutMs,
        durationMs: Date.now() - started,
        patchNotes: patchNotes(applied.output),
        added: applied.added,
        directives: applied.directives,
      });
      if (result.ok) await passed(workspaceRoot);
      return result;
    } finally {
      // After an abort the workspace is about to be deleted; restoring it would only delay that.
      if (!signal.aborted) await worker.workspace.rollback(referenceSourceOf(worker.sources));
    }
  }

  private async visitIn(worker: Worker, visit: (workspaceRoot: string) => Promise<unknown>): Promise<unknown> {
    try {
      return await visit(worker.workspace.root);
    } finally {
      if (!this.ctx.signal.aborted) await worker.workspace.rollback(referenceSourceOf(worker.sources));
    }
  }
}
