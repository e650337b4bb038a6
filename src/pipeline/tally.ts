// What the run keeps beside its events until results.json: the discovery builds and the
// run-state.json writer; the records themselves are derived from the events.
import type { WorkspacePlacement } from '../build/index.js';
import { buildsRecord, isFinal, noPatchRecord, runFromEvents, unrepairedRecord, type AgentIdentity } from '../formats/run-records.js';
import type { NotConsidered, SuggestionRecord } from '../formats/results.js';
import { notRun } from '../repair/run-reference.js';
import type { BuildResult, Suggestion } from '../formats/types.js';
import type { RunStateWriter } from '../store/index.js';
import type { RunContext } from './session.js';

export interface Failing {
  suggestion: Suggestion;
  build: BuildResult;
}

export class RunTally {
  readonly builds = new Map<string, BuildResult>();
  identity: AgentIdentity = { backend: null, model: null };
  placement: () => WorkspacePlacement | undefined = () => undefined;
  /** The run this one continues (--resume), once known. */
  resumedFrom: string | null = null;
  /** --check-run all: suggestions that build as generated, their records finished once they ran. */
  readonly heldForRuns: { suggestion: Suggestion; record: SuggestionRecord }[] = [];
  /** The run's run-state.json; null for --discover-only, which cannot be resumed. */
  state: RunStateWriter | null = null;
  /** Suggestions whose patches are what an earlier repair wrote. */
  repairedEarlier: ReadonlySet<string> = new Set();
  private digests = new Map<string, string>();

  constructor(
    private readonly context: RunContext,
    readonly considered: Suggestion[],
    readonly notConsidered: NotConsidered[],
  ) {}

  /** The records of the suggestions finished so far, from the run's events. */
  finishedRecords(): ReadonlyMap<string, SuggestionRecord> {
    return runFromEvents(this.context.events).records;
  }

  async finish(finished: SuggestionRecord): Promise<void> {
    const record = this.withRunCheck(finished);
    this.context.emit({ type: 'suggestion-finished', record });
    // What discovery settles is settled again by the next discovery; only repair outcomes are kept.
    if (this.state && isFinal(record) && record.status !== 'ok' && record.reason !== 'no patch') {
      this.state.state.finished[record.id] = record;
      await this.state.save();
    }
  }

  /**
   * A verified repair about to be written back: recorded first, so that a run killed once the write
   * is done resumes it as repaired; one killed before is found unwritten and continued.
   */
  async writing(record: SuggestionRecord): Promise<void> {
    if (!this.state) return;
    this.state.state.finished[record.id] = this.withRunCheck(record);
    await this.state.save();
  }

  /** With --check-run every record says whether it ran; when it did not, its status says why. */
  withRunCheck(record: SuggestionRecord): SuggestionRecord {
    const { options } = this.context;
    return options.checkRun !== 'off' && record.run_check === null ? { ...record, run_check: notRun(options, null) } : record;
  }

  /** Starts the run's own run-state.json with the builds it took over and the records it kept. */
  async startState(writer: RunStateWriter, builds: ReadonlyMap<string, BuildResult>, digests: Map<string, string>): Promise<void> {
    this.digests = digests;
    this.state = writer;
    for (const record of this.finishedRecords().values()) if (isFinal(record) && record.status !== 'ok') writer.state.finished[record.id] = record;
    for (const [id, build] of builds) await this.noteBuild(id, build);
    await writer.save();
  }

  /**
   * A discovery build, kept as soon as it finished (an interrupted discovery still knows it) and
   * recorded in run-state.json with the digest of what it depended on.
   */
  async noteBuild(id: string, build: BuildResult): Promise<void> {
    this.builds.set(id, build);
    const digest = this.digests.get(id);
    if (!this.state || digest === undefined) return;
    this.state.state.builds[id] = { digest, build };
    await this.state.save();
  }

  /**
   * The record of a suggestion the run did not finish, for `reason` (interrupted, …): one whose
   * discovery build finished keeps what that build settled (it builds; under --discover-only, it
   * fails), every other one is skipped.
   */
  unfinishedRecord(suggestion: Suggestion, reason: string | null): SuggestionRecord {
    const build = this.builds.get(suggestion.id);
    if (build?.ok) return buildsRecord(suggestion, this.repairedEarlier.has(suggestion.id));
    if (build && this.context.options.mode === 'discover-only') return unrepairedRecord(suggestion, build, { status: 'failed', reason: null });
    return unrepairedRecord(suggestion, build ?? null, { status: 'skipped', reason });
  }

  /** Records what discovery settles (no patch, builds) and returns the failing suggestions. */
  async recordDiscovery(builds: Map<string, BuildResult>, repairedEarlier: Set<string>): Promise<Failing[]> {
    const failing: Failing[] = [];
    const finished = this.finishedRecords();
    for (const suggestion of this.considered) {
      if (finished.has(suggestion.id)) continue;
      const build = builds.get(suggestion.id);
      if (build) this.builds.set(suggestion.id, build);
      if (!build) await this.finish(noPatchRecord(suggestion));
      else if (build.ok && this.context.options.checkRun === 'all' && this.context.options.mode !== 'discover-only') {
        this.heldForRuns.push({ suggestion, record: buildsRecord(suggestion, repairedEarlier.has(suggestion.id)) });
      } else if (build.ok) await this.finish(buildsRecord(suggestion, repairedEarlier.has(suggestion.id)));
      else failing.push({ suggestion, build });
    }
    return failing;
  }
}
