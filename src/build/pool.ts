// Parallel, incremental builds in private workspaces. The reference build (no suggestion) runs
// first in workspace 0; what it produced is kept aside, and further workspaces (up to `jobs`) are
// cloned from the user's tree plus those outputs when there is work waiting for them, so they
// start with objects. Each build applies one patch set in an idle workspace, runs compile.sh and
// rolls the workspace back to the reference state (see workspace.ts).
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Emit } from '../formats/events.js';
import type { BuildResult, DotDiscopop, PatchSet } from '../formats/types.js';
import { faultPoint } from '../fault.js';
import { patchWorkspace } from './apply.js';
import { dotDiscopopOutside, OUTSIDE_DOT_DISCOPOP, runCompileScript } from './compile.js';
import { compileResult, patchFailure, patchNotes } from './result.js';
import { absolutizeEscapingLinks, materialize, scanTree, statEntry, type Entry } from './tree.js';
import { projectSourceOf, referenceSourceOf, timestampGranularityNs, Workspace, type ReferenceSources } from './workspace.js';
import { repairDir } from '../store/paths.js';

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
}

/** A probe build goes ahead of the queue: the run may refuse on its result. */
export type BuildPurpose = 'probe' | 'discovery' | 'verify';

interface Worker {
  workspace: Workspace;
  patchDir: string;
  busy: boolean;
}

interface Job {
  id: string;
  patchSet: PatchSet;
  purpose: BuildPurpose;
  resolve: (result: BuildResult) => void;
  reject: (error: unknown) => void;
}

export class BuildPool {
  private readonly workers: Worker[] = [];
  private readonly queue: Job[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly controller = new AbortController();
  private cloning = 0;
  private reference?: Promise<BuildResult>;
  private sources?: ReferenceSources;
  private outsideDotDir?: string;
  private disposed?: Promise<void>;

  private constructor(
    private readonly o: BuildPoolOptions,
    /** The pool's own folder under the scratch folder; dispose() removes it. */
    readonly root: string,
    private readonly projectRoot: string,
    private readonly granularityNs: bigint,
  ) {
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
      const projectRoot = await realpath(o.dp.projectRoot);
      const pool = new BuildPool(o, root, projectRoot, await timestampGranularityNs(root));
      await pool.addFirstWorkspace();
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

  /** The project without any suggestion. Runs once; later calls return the same result. */
  referenceBuild(): Promise<BuildResult> {
    this.reference ??= this.track(this.runReference());
    return this.reference;
  }

  /** Builds the project with `patchSet` applied, in isolation. Waits for the reference build. */
  async build(id: string, patchSet: PatchSet, purpose: BuildPurpose): Promise<BuildResult> {
    await this.referenceBuild();
    this.controller.signal.throwIfAborted();
    return new Promise<BuildResult>((resolve, reject) => {
      const job = { id, patchSet, purpose, resolve, reject };
      if (purpose === 'probe') this.queue.unshift(job);
      else this.queue.push(job);
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
    await rm(this.root, { recursive: true, force: true });
  }

  private async addFirstWorkspace(): Promise<void> {
    const dotDir = await realpath(this.o.dp.dotDir);
    const skipped = new Set([repairDir(dotDir), await realpath(this.o.scratchDir).catch(() => this.o.scratchDir), this.root]);
    const outside = dotDiscopopOutside({ projectRoot: this.projectRoot, dotDir });
    // The copy of an outside .discopop takes the name `.discopop`; one the project holds is another analysis.
    if (outside) skipped.add(join(this.projectRoot, OUTSIDE_DOT_DISCOPOP));
    const manifest = await scanTree(this.projectRoot, (abs) => skipped.has(abs));
    absolutizeEscapingLinks(manifest, this.projectRoot);
    if (outside) {
      this.outsideDotDir = dotDir;
      const dot = await scanTree(dotDir, (abs) => skipped.has(abs));
      absolutizeEscapingLinks(dot, dotDir);
      manifest.set(OUTSIDE_DOT_DISCOPOP, (await statEntry(dotDir))!);
      for (const [rel, entry] of dot) manifest.set(`${OUTSIDE_DOT_DISCOPOP}/${rel}`, entry);
    }
    const tree = join(this.root, 'w0', 'tree');
    await mkdir(tree, { recursive: true });
    await materialize({
      entries: [...manifest],
      sourceOf: projectSourceOf({ projectRoot: this.projectRoot, outsideDotDir: this.outsideDotDir }),
      toRoot: tree,
      linkRoots: [this.projectRoot, this.o.dp.projectRoot],
    });
    this.workers.push({ workspace: new Workspace(tree, await scanTree(tree), this.granularityNs), patchDir: join(this.root, 'w0', 'patches'), busy: false });
  }

  private async runReference(): Promise<BuildResult> {
    const worker = this.workers[0] as Worker;
    worker.busy = true;
    this.o.emit({ type: 'build-started', id: null, purpose: 'reference' });
    const started = Date.now();
    const signal = this.controller.signal;
    const outcome = await runCompileScript({ dp: this.o.dp, workspaceRoot: worker.workspace.root, threads: this.o.threads, timeoutMs: this.o.timeoutMs, signal });
    if (outcome.kind === 'canceled') signal.throwIfAborted();
    const result = compileResult({ dp: this.o.dp, outcome, workspaceRoot: worker.workspace.root, timeoutMs: this.o.timeoutMs, durationMs: Date.now() - started });
    await this.keepReferenceOutputs(worker.workspace);
    worker.busy = false;
    this.emitFinished(null, 'reference', result);
    this.pump();
    return result;
  }

  /** Copies aside what the reference build created or rewrote: rollbacks and clones read it. */
  private async keepReferenceOutputs(workspace: Workspace): Promise<void> {
    const before = workspace.manifest;
    const after = await workspace.captureBaseline();
    const written = [...after].filter(([rel, e]) => e.kind === 'file' && before.get(rel)?.ctimeNs !== e.ctimeNs);
    const outputsRoot = join(this.root, 'reference-outputs');
    await mkdir(outputsRoot, { recursive: true });
    await materialize({ entries: written, sourceOf: (rel) => join(workspace.root, rel), toRoot: outputsRoot, linkRoots: [] });
    this.sources = { projectRoot: this.projectRoot, outsideDotDir: this.outsideDotDir, outputsRoot, outputs: new Set(written.map(([rel]) => rel)) };
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
    const wanted = Math.min(this.queue.length, Math.max(1, this.o.jobs) - this.workers.length - this.cloning);
    for (let i = 0; i < wanted; i++) {
      this.track(this.addClone()).catch((error: unknown) => {
        // Fewer workspaces only means fewer builds at once; the run goes on with those it has.
        if (!this.controller.signal.aborted) {
          this.o.emit({ type: 'notice', level: 'warning', message: `could not prepare another build workspace: ${(error as Error).message}` });
        }
      });
    }
  }

  private async addClone(): Promise<void> {
    const sources = this.sources as ReferenceSources;
    const index = this.workers.length + this.cloning;
    this.cloning++;
    try {
      const tree = join(this.root, `w${index}`, 'tree');
      await mkdir(tree, { recursive: true });
      const first = (this.workers[0] as Worker).workspace;
      const entries: [string, Entry][] = [...first.manifest].map(([rel, e]) => [rel, { ...e }]);
      await materialize({ entries, sourceOf: referenceSourceOf(sources), toRoot: tree, linkRoots: [first.root] });
      this.workers.push({ workspace: new Workspace(tree, await scanTree(tree), this.granularityNs), patchDir: join(this.root, `w${index}`, 'patches'), busy: false });
    } finally {
      this.cloning--;
    }
    this.pump();
  }

  private async runJob(worker: Worker, job: Job): Promise<void> {
    this.o.emit({ type: 'build-started', id: job.purpose === 'probe' ? null : job.id, purpose: job.purpose });
    try {
      const result = await this.buildIn(worker, job.patchSet);
      this.emitFinished(job.purpose === 'probe' ? null : job.id, job.purpose, result);
      job.resolve(result);
    } catch (error) {
      job.reject(error);
    } finally {
      worker.busy = false;
      this.pump();
    }
  }

  private async buildIn(worker: Worker, patchSet: PatchSet): Promise<BuildResult> {
    const { dp, threads } = this.o;
    const signal = this.controller.signal;
    const workspaceRoot = worker.workspace.root;
    const started = Date.now();
    const remaining = () => Math.max(1, started + this.o.timeoutMs - Date.now());
    try {
      const applied = await patchWorkspace({ dp, patchSet, workspaceRoot, patchDir: worker.patchDir, timeoutMs: remaining(), signal });
      if (!applied.ok) {
        return patchFailure({ dp, output: applied.output, failures: applied.failures, workspaceRoot, durationMs: Date.now() - started });
      }
      await worker.workspace.markChanged(applied.changed);
      faultPoint('build.after-patch');
      const timeoutMs = remaining();
      const outcome = await runCompileScript({ dp, workspaceRoot, threads, timeoutMs, signal });
      faultPoint('build.after-compile');
      if (outcome.kind === 'canceled') signal.throwIfAborted();
      return compileResult({ dp, outcome, workspaceRoot, timeoutMs, durationMs: Date.now() - started, patchNotes: patchNotes(applied.output) });
    } finally {
      // After an abort the workspace is about to be deleted; restoring it would only delay that.
      if (!signal.aborted) await worker.workspace.rollback(referenceSourceOf(this.sources as ReferenceSources));
    }
  }

  private emitFinished(id: string | null, purpose: 'reference' | BuildPurpose, result: BuildResult): void {
    this.o.emit({
      type: 'build-finished',
      id,
      purpose,
      ok: result.ok,
      error_class: result.errorClass ?? null,
      first_error: result.firstError ?? null,
      duration_ms: result.durationMs,
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
