// The built-in repairer: a deterministic first tier for the common OpenMP clause errors of
// DiscoPoP patches. It changes only the directive lines the generated patch added and answers
// in the same form as a model, so its answer goes through the same six checks.
import type { BuiltinResult, RepairTask } from '../formats/task.js';
import { fileDiff, generatedHeaderLines } from './answer-diff.js';
import { isBuildFailure } from '../formats/types.js';
import { atMacroUse } from './macro-errors.js';
import { repairFile } from './repair-file.js';
import type { FileDiagnostic } from './rules/rule.js';

export async function builtinRepair(task: RepairTask): Promise<BuiltinResult> {
  const { build, suggestion } = task;
  if (build.ok) return declined('the generated patch set builds; there is nothing to repair');
  if (build.failedAt === 'patch')
    return declined(
      `the generated patch does not apply (${build.firstError ?? firstLine(build.output)}); no directive rule can help`,
    );
  if (build.failedAt === 'timeout') return declined('the build timed out; no compiler error to repair');
  // The build stage's parsed diagnostics: the same ones the prompt and results.json show.
  const fileIds = new Set(suggestion.files.map((file) => file.fileId));
  // Errors, and the warnings that failed the build (a directive the compiler partly ignored).
  const errors = atMacroUse(build.diagnostics.filter(isBuildFailure), fileIds);
  const link = errors.find((error) => error.errorClass === 'link');
  if (link) return declined(`the build failed at the link step (${link.message}); no directive rule can help`);
  const foreign = errors.find(
    (error) => error.fileId === undefined || !fileIds.has(error.fileId) || error.line === undefined,
  );
  if (foreign)
    return declined(
      `an error outside the suggestion's files: ${[foreign.file, foreign.line, foreign.column].filter((part) => part !== undefined).join(':')}: ${foreign.message}`,
    );
  // The repair stage never asks (repair/loop.ts fails such a suggestion first); said here too, so
  // the repairer called on its own gives the same answer.
  const pseudo = errors.find((error) => error.errorClass === 'pseudo-directive');
  if (pseudo)
    return declined(
      `line ${pseudo.line}: not an OpenMP directive (DiscoPoP's device-update pseudo-directive); only deleting the line compiles, so the suggestion must be regenerated`,
    );
  if (errors.length === 0)
    return declined(`no compiler error in the suggestion's files (${build.firstError ?? firstLine(build.output)})`);
  const inFiles = errors as FileDiagnostic[];

  const answers: string[] = [];
  const rules: string[] = [];
  for (const file of suggestion.files) {
    const generated = task.generated.get(file.fileId);
    const patched = task.patched.get(file.fileId);
    const original = task.sources.get(file.fileId);
    if (generated === undefined || patched === undefined || original === undefined) {
      return declined(`${file.source.relPath}: the task carries no source or patch for file id ${file.fileId}`);
    }
    const translationUnit = task.translationUnits?.get(file.fileId);
    const outcome = await repairFile({
      generatedPatch: generated,
      patched,
      errors: inFiles.filter((error) => error.fileId === file.fileId),
      isCxx: !/\.c$/.test(file.source.relPath),
      ...(translationUnit !== undefined && { translationUnit }),
    });
    if (outcome.kind === 'declined') {
      const missing = task.translationUnitsMissing?.get(file.fileId);
      return declined(
        `${file.source.relPath}: ${outcome.reason}${missing === undefined ? '' : ` (read without the preprocessor: ${missing})`}`,
      );
    }
    if (outcome.kind === 'unchanged') continue;
    const headers = generatedHeaderLines(generated);
    if (!headers.ok) return declined(`${file.source.relPath}: ${headers.reason}`);
    answers.push(`\`\`\`diff\n${fileDiff({ headers, original, repaired: outcome.source })}\`\`\`\n`);
    for (const rule of outcome.rules) if (!rules.includes(rule)) rules.push(rule);
  }
  if (answers.length === 0) return declined('no built-in rule changes any directive of this suggestion');
  return { kind: 'answer', text: answers.join('\n'), rules };
}

function declined(reason: string): BuiltinResult {
  return { kind: 'declined', reason };
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? 'no output'
  );
}
