// Check 6: the suggestion is rebuilt in isolation with the canonical patch set, exactly as the
// write-back would leave it. It must build. When it does not, the follow-up names the errors that
// are new compared with the generated patch's build, since those are the ones the answer caused.
import { isBuildFailure, type BuildResult, type Diagnostic, type PatchSet } from '../../formats/types.js';
import type { VerifyBuilder } from '../../formats/outcome.js';
import type { RepairTask } from '../../formats/task.js';
import { renderDiagnostic } from '../prompt.js';
import { pass, reject, type CheckOutcome } from './result.js';
import { judgeRuns, type RunCheckSettings, type RunJudgement } from './runs.js';

/** With --check-run, a build that passes is run in its workspace (check 7) before that is rolled back. */
export async function buildsCheck(o: {
  task: RepairTask;
  canonical: PatchSet;
  pool: VerifyBuilder;
  runCheck?: RunCheckSettings | undefined;
}): Promise<{ built: CheckOutcome<BuildResult>; ran: RunJudgement | null; output: string }> {
  const { runCheck } = o;
  const { build, ran } = runCheck
    ? await o.pool.buildThen(o.task.suggestion.id, o.canonical, 'verify', (program) => judgeRuns(program, runCheck))
    : { build: await o.pool.build(o.task.suggestion.id, o.canonical, 'verify'), ran: null };
  return { built: build.ok ? pass(build) : reject(buildFailureText(o.task.build, build)), ran, output: build.output };
}

export function buildFailureText(generated: BuildResult, candidate: BuildResult): string {
  if (candidate.failedAt === 'timeout')
    return 'The build with the corrected patch set did not finish within the build time limit.';
  // patch's own complaint first: its output opens with "patching file …", which says nothing.
  if (candidate.failedAt === 'patch')
    return `GNU patch could not apply the corrected patch set: ${candidate.firstError ?? 'patch failed'}\n${candidate.output.trim()}`;
  const errors = candidate.diagnostics.filter(isBuildFailure);
  if (errors.length === 0)
    return `The project does not build with the corrected patch set:\n${candidate.output.trim()}`;
  const before = new Set(generated.diagnostics.filter(isBuildFailure).map(identity));
  const fresh = errors.filter((d) => !before.has(identity(d)));
  if (fresh.length > 0)
    return `The project does not build with the corrected patch set. New compiler errors:\n${fresh.map(renderDiagnostic).join('\n')}`;
  return `The project still does not build; the errors of the generated patch remain:\n${errors.map(renderDiagnostic).join('\n')}`;
}

/** Line numbers move when a repair adds or removes lines, so an error is its file and message. */
function identity(d: Diagnostic): string {
  return `${d.fileId ?? d.file}\u0000${d.message}`;
}
