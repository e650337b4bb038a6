// The six checks, cheapest first: extraction → dry-run apply → apply → canonicalize → directives
// kept → (--strict) → builds → (--check-run) runs the same → (--check-races) no races. The first failure rejects a candidate; when an answer offers several,
// the reason of the one that got furthest is what the model is told next. Verification only reads the task and writes below the scratch folder; it
// never writes into patch_generator/.
import { faultPoint } from '../fault.js';
import { parsePatches } from '../patch/index.js';
import type { FilePatch } from '../patch/model.js';
import type { CheckName } from '../formats/events.js';
import type { AlternativeVerification, DirectivesKept, Verification } from '../formats/attempt.js';
import type { RunOptions } from '../formats/run-options.js';
import type { BuildResult, Diagnostic, DotDiscopop, PatchSet } from '../formats/types.js';
import { resultingCode, type Applied } from './checks/apply.js';
import { buildsCheck } from './checks/builds.js';
import { canonicalize } from './checks/canonicalize.js';
import { directivesKept } from './checks/directives.js';
import { dryRunApply, type DryRun } from './checks/dry-run.js';
import { extractAlternatives, type Extracted } from './checks/extraction.js';
import { pass, reject, type CheckOutcome } from './checks/result.js';
import { strictCheck } from './checks/strict.js';
import { runsOutcome, type RunCheckSettings } from './checks/runs.js';
import type { RaceCheck, RunCheck } from '../formats/results.js';
import { racesOutcome, type RaceCheckSetup } from './checks/races.js';
import { runRaceCheck } from './race-reference.js';
import type { RepairTask } from '../formats/task.js';
import type { IsolatedBuilder, VerifyBuilder } from '../formats/outcome.js';

/** A verification in progress: every field of a rejected one. */
type Progress = Omit<
  AlternativeVerification & { accepted: false; rejectedBy: CheckName },
  'accepted' | 'rejectedBy' | 'reason' | 'runCheck' | 'raceCheck'
>;
type Accepted = Extract<AlternativeVerification, { accepted: true }>;
type Rejected = AlternativeVerification & { accepted: false; rejectedBy: CheckName };

export interface VerifyDeps {
  dp: Pick<DotDiscopop, 'projectRoot'>;
  options: Pick<RunOptions, 'strict'>;
  pool: VerifyBuilder;
  /** Scratch folder for `diff -Naru`; nothing else is written. */
  scratchDir: string;
  /** Check 7 with --check-run: the reference to run like and how; absent without it. */
  runCheck?: RunCheckSettings;
  /** --check-races: the race settings and the reference's races; absent without it. */
  raceCheck?: { pool: IsolatedBuilder; setup: RaceCheckSetup };
  /** The static collapse check on a candidate that builds (src/pipeline/static-check.ts): its findings reject it. */
  collapseCheck?: CollapseCheck;
}

/** Findings of the static collapse check for a patch set, given each file's resulting code. */
export type CollapseCheck = (patchSet: PatchSet, resulting: ReadonlyMap<string, string>) => Promise<Diagnostic[]>;

/** One candidate on its way through the checks; `alive` until a check rejects it. */
class CandidateRun {
  readonly state: Progress;
  alive = true;
  basis: 'unpatched' | 'on-top' = 'unpatched';
  contents = new Map<string, string>();
  applied: Applied | null = null;
  canonicalSet: PatchSet | null = null;
  kept: DirectivesKept | null = null;
  build: BuildResult | null = null;
  runCheck: RunCheck | null = null;
  raceCheck: RaceCheck | null = null;

  constructor(
    readonly extracted: Extracted,
    alternative: number | null,
    reading: 'diff' | 'hunk-context' = 'diff',
  ) {
    this.state = {
      checks: [],
      extracted: null,
      canonical: null,
      applyReport: null,
      directives: null,
      buildOutput: null,
      alternative,
      blocks: extracted.blocks,
      reading,
    };
  }

  /**
   * The same blocks with the context lines that differ from the file written as the answer has
   * them: a code edit outside the directive, which the remaining checks judge like any other.
   */
  hunkContextReading(dryRun: DryRun): CandidateRun {
    const reading = new CandidateRun(this.extracted, null, 'hunk-context');
    reading.state.extracted = this.state.extracted;
    reading.state.applyReport = this.state.applyReport;
    reading.record('extraction', pass(this.extracted));
    reading.record('dry-run-apply', pass(dryRun));
    reading.basis = dryRun.basis;
    reading.contents = dryRun.contents;
    return reading;
  }

  /** Records a check's outcome; false (and the candidate out) when it failed. */
  record<T>(check: CheckName, outcome: CheckOutcome<T>): outcome is { ok: true; value: T } {
    this.state.checks.push({ check, passed: outcome.ok, reason: outcome.ok ? null : outcome.reason });
    faultPoint(`verify.after-${check}`);
    if (!outcome.ok) this.alive = false;
    return outcome.ok;
  }

  verdict(task: RepairTask, unsettled: string): AlternativeVerification {
    const last = this.state.checks.at(-1);
    if (this.alive && this.build && this.canonicalSet && this.kept && this.state.extracted) {
      return {
        ...this.state,
        accepted: true,
        extracted: this.state.extracted,
        canonical: this.canonicalSet,
        basis: this.basis,
        changedFiles: changedFiles(task, this.canonicalSet),
        ...this.kept,
        build: this.build,
        runCheck: this.runCheck,
        raceCheck: this.raceCheck,
      };
    }
    if (this.alive || !last) return { ...this.state, accepted: false, rejectedBy: null, reason: unsettled };
    return {
      ...this.state,
      accepted: false,
      rejectedBy: last.check,
      reason: last.reason ?? '',
      runCheck: this.runCheck,
      raceCheck: this.raceCheck,
    };
  }
}

/**
 * Verifies every candidate of an answer, cheapest check first across all of them: each check runs
 * on every candidate still in the race before the next check runs on any, and builds go in answer
 * order until one passes. The first candidate to pass all six is accepted. A candidate with a
 * context line that differs from the file is followed by its hunk-context reading (the answer's
 * fix may be written in that line); the diff's own reading comes first.
 */
export async function verify(answer: string, task: RepairTask, deps: VerifyDeps): Promise<Verification> {
  const extraction = extractAlternatives(answer, task, deps.dp);
  if (!extraction.ok) {
    const run = new CandidateRun({ byFileId: new Map(), blocks: [] }, null);
    run.record('extraction', extraction);
    const verdict = run.verdict(task, '') as Rejected;
    return { ...verdict, alternatives: [verdict] };
  }
  let runs = extraction.value.map((extracted) => new CandidateRun(extracted, null));
  const alive = () => runs.filter((run) => run.alive);
  const generated = generatedPatches(task);

  for (const run of runs) {
    run.record('extraction', pass(run.extracted));
    run.state.extracted = new Map([...run.extracted.byFileId].map(([id, patch]) => [id, renderFilePatch(patch)]));
  }
  runs = runs.flatMap((run) => {
    const { outcome, applyReport, hunkContext } = dryRunApply({ task, candidate: run.extracted.byFileId, generated });
    run.state.applyReport = applyReport;
    if (run.record('dry-run-apply', outcome)) {
      run.basis = outcome.value.basis;
      run.contents = outcome.value.contents;
    }
    return hunkContext === null ? [run] : [run, run.hunkContextReading(hunkContext)];
  });
  const several = runs.length > 1;
  runs.forEach((run, index) => (run.state.alternative = several ? index + 1 : null));
  for (const run of alive()) {
    const applied = resultingCode(task, run.contents);
    if (run.record('apply', applied)) run.applied = applied.value;
  }
  for (const run of alive()) {
    const canonical = await canonicalize({ task, ...run.applied!, scratchDir: deps.scratchDir });
    if (!run.record('canonicalize', canonical)) continue;
    run.canonicalSet = canonical.value.patchSet;
    run.state.canonical = canonical.value.patchSet;
  }
  for (const run of alive()) {
    const kept = directivesKept(task, run.applied!.results);
    if (!run.record('directives-kept', kept)) continue;
    run.kept = kept.value;
    run.state.directives = kept.value;
  }
  if (deps.options.strict) for (const run of alive()) run.record('strict', strictCheck(run.kept!));
  let winner: CandidateRun | null = null;
  for (const run of alive()) {
    if (!(await buildAndRun(run, task, deps))) continue;
    winner = run;
    break;
  }

  const unsettled = winner ? `not built: alternative ${winner.state.alternative} passed every check first` : '';
  const alternatives = runs.map((run) => run.verdict(task, unsettled));
  if (winner) return { ...(alternatives[runs.indexOf(winner)] as Accepted), alternatives };
  const furthest = runs.reduce((best, run) => (passedChecks(run) > passedChecks(best) ? run : best));
  const verdict = alternatives[runs.indexOf(furthest)] as Rejected;
  if (!several) return { ...verdict, alternatives };
  return { ...verdict, reason: furthestReason(furthest, verdict, runs.length, extraction.value.length), alternatives };
}

/** The rejection of an answer read several ways: which alternative got furthest, and its own reason. */
function furthestReason(furthest: CandidateRun, verdict: Rejected, readings: number, offered: number): string {
  const readAs =
    furthest.state.reading === 'hunk-context'
      ? ', with its context lines as written where they differ from the file'
      : '';
  const which = `alternative ${furthest.state.alternative} of ${readings} (the answer's block${furthest.state.blocks.length === 1 ? '' : 's'} ${furthest.state.blocks.join(', ')}${readAs})`;
  const holds = offered > 1 ? `offers ${offered} alternative patch sets` : 'holds one patch set';
  const readTwice =
    readings > offered
      ? `, read ${readings} ways (also with the context lines that differ from the file written as the answer has them),`
      : '';
  return `The answer ${holds}${readTwice} and none passed. The one that got furthest, ${which}, was rejected by the ${verdict.rejectedBy} check:\n${verdict.reason}`;
}

/**
 * The checks that build: the verification build (and the static collapse check on what it built),
 * then check 7's runs and the race check when they are on. True when the candidate passed them all.
 */
async function buildAndRun(run: CandidateRun, task: RepairTask, deps: VerifyDeps): Promise<boolean> {
  const { built, ran, output } = await buildsCheck({
    task,
    canonical: run.canonicalSet!,
    pool: deps.pool,
    runCheck: deps.runCheck,
  });
  if (!built.ok) run.state.buildOutput = output;
  // A build is not the last word: clang builds a collapse over loops OpenMP cannot collapse.
  const findings =
    built.ok && deps.collapseCheck ? await deps.collapseCheck(run.canonicalSet!, run.applied!.results) : [];
  const judged: CheckOutcome<BuildResult> = findings.length > 0 ? reject(collapseRejection(findings)) : built;
  if (!run.record('builds', judged)) return false;
  run.build = judged.value;
  if (ran) {
    run.runCheck = ran.record;
    if (!run.record('runs', runsOutcome(ran))) return false;
  }
  if (deps.raceCheck) {
    const { pool, setup } = deps.raceCheck;
    const raced = await runRaceCheck(pool, task.suggestion.id, run.canonicalSet!, setup);
    run.raceCheck = raced.record;
    if (!run.record('races', racesOutcome(raced))) return false;
  }
  return true;
}

function collapseRejection(findings: readonly Diagnostic[]): string {
  const lines = findings.map((d) => `${d.file}:${d.line}:${d.column}: error: ${d.message}`);
  return `The project builds with the corrected patch set, but patch-repair's static check rejects it: a collapse must cover perfectly nested loops. Lower the collapse to the loops that are perfectly nested (or remove it) rather than moving code:\n${lines.join('\n')}`;
}

function passedChecks(run: CandidateRun): number {
  return run.state.checks.filter((check) => check.passed).length;
}

/** Files whose patch bytes differ from the generated ones: what the write-back replaces. */
function changedFiles(task: RepairTask, canonical: PatchSet): string[] {
  return task.suggestion.files.map((f) => f.fileId).filter((id) => canonical.get(id) !== task.generated.get(id));
}

function generatedPatches(task: RepairTask): Map<string, FilePatch> {
  const byFileId = new Map<string, FilePatch>();
  for (const file of task.suggestion.files) {
    const [patch] = parsePatches(task.generated.get(file.fileId) ?? file.text).patches;
    if (patch) byFileId.set(file.fileId, patch);
  }
  return byFileId;
}

/** A parsed block back as unified-diff text, so the transcript shows what was actually taken from the answer. */
export function renderFilePatch(patch: FilePatch): string {
  const lines = [`--- ${patch.oldPath ?? '/dev/null'}`, `+++ ${patch.newPath ?? '/dev/null'}`];
  const prefix = { context: ' ', remove: '-', add: '+' } as const;
  for (const hunk of patch.hunks) {
    lines.push(hunk.header);
    for (const line of hunk.lines) lines.push(prefix[line.kind] + line.text);
  }
  return `${lines.join('\n')}\n`;
}
