// The six checks, cheapest first: extraction → dry-run apply → apply → canonicalize → directives
// kept → (--strict) → builds. The first failure rejects the candidate, and its reason is what the
// model is told next. Verification only reads the task and writes below the scratch folder; it
// never writes into patch_generator/.
import { faultPoint } from '../fault.js';
import { parsePatches } from '../patch/index.js';
import type { FilePatch } from '../patch/model.js';
import type { CheckName, CheckResult } from '../formats/events.js';
import type { Verification } from '../formats/attempt.js';
import type { RunOptions } from '../formats/run-options.js';
import type { BuildResult, DotDiscopop, PatchSet } from '../formats/types.js';
import { resultingCode } from './checks/apply.js';
import { buildsCheck } from './checks/builds.js';
import { canonicalize } from './checks/canonicalize.js';
import { directivesKept } from './checks/directives.js';
import { dryRunApply } from './checks/dry-run.js';
import { extractCandidate } from './checks/extraction.js';
import type { CheckOutcome } from './checks/result.js';
import { strictCheck } from './checks/strict.js';
import type { RepairTask } from '../formats/task.js';
import type { VerifyBuilder } from '../formats/outcome.js';

/** A verification in progress: every field of a rejected one. */
type Progress = Omit<Verification & { accepted: false }, 'accepted' | 'rejectedBy' | 'reason'>;

export interface VerifyDeps {
  dp: Pick<DotDiscopop, 'projectRoot'>;
  options: Pick<RunOptions, 'strict'>;
  pool: VerifyBuilder;
  /** Scratch folder for `diff -Naru`; nothing else is written. */
  scratchDir: string;
}

export async function verify(answer: string, task: RepairTask, deps: VerifyDeps): Promise<Verification> {
  const state: Progress = { checks: [], extracted: null, canonical: null, applyReport: null, directives: null };
  const run = <T>(check: CheckName, outcome: CheckOutcome<T>): outcome is { ok: true; value: T } => {
    state.checks.push({ check, passed: outcome.ok, reason: outcome.ok ? null : outcome.reason });
    faultPoint(`verify.after-${check}`);
    return outcome.ok;
  };
  const rejected = (): Verification => {
    const last = state.checks.at(-1)!;
    return { ...state, accepted: false, rejectedBy: last.check, reason: last.reason ?? '' };
  };

  const extraction = extractCandidate(answer, task, deps.dp);
  if (!run('extraction', extraction)) return rejected();
  state.extracted = new Map([...extraction.value.byFileId].map(([id, patch]) => [id, renderFilePatch(patch)]));

  const { outcome: dryRun, applyReport } = dryRunApply({ task, candidate: extraction.value.byFileId, generated: generatedPatches(task) });
  state.applyReport = applyReport;
  if (!run('dry-run-apply', dryRun)) return rejected();

  const applied = resultingCode(task, dryRun.value.contents);
  if (!run('apply', applied)) return rejected();

  const canonical = await canonicalize({ task, ...applied.value, scratchDir: deps.scratchDir });
  if (!run('canonicalize', canonical)) return rejected();
  state.canonical = canonical.value.patchSet;

  const kept = directivesKept(task, applied.value.results);
  if (!run('directives-kept', kept)) return rejected();
  state.directives = kept.value;

  if (deps.options.strict && !run('strict', strictCheck(kept.value))) return rejected();

  const built = await buildsCheck({ task, canonical: canonical.value.patchSet, pool: deps.pool });
  if (!run('builds', built)) return rejected();

  return {
    ...state,
    accepted: true,
    extracted: state.extracted,
    canonical: canonical.value.patchSet,
    basis: dryRun.value.basis,
    changedFiles: changedFiles(task, canonical.value.patchSet),
    ...kept.value,
    build: built.value,
  };
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
