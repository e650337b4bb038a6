// Builds the text of each call from a ladder template and the failing suggestion. Limits:
// diagnostics are cut to --max-error-chars, at a line end; a prompt longer than --max-prompt-chars loses source
// context first (fewer lines, then none), then findings, then more diagnostics. The patches are
// never cut: a model cannot correct a patch it has not seen whole.
import type { RunOptions } from '../formats/run-options.js';
import type { Diagnostic, PatternInfo } from '../formats/types.js';
import { renderTemplate, rungFor, type PromptLadder, type RungValues } from './ladder.js';
import type { RepairTask } from '../formats/task.js';
import { isOmpPragma } from '../patch/index.js';
import {
  identityText,
  outputContractText,
  patchBlocksText,
  patternMetadataText,
  sourceWindowsText,
} from './discopop-prompt.js';
import { numberedWindows } from './source-windows.js';

type Limits = Pick<RunOptions, 'contextLines' | 'maxErrorChars' | 'maxPromptChars'>;

export interface BuiltPrompt {
  text: string;
  /** Template name, recorded in the transcript. */
  template: string;
}

/**
 * A built-in candidate that builds but that check 7 (--check-run) rejected: the agent starts from
 * the same errors and would likely make the same edit, so its first prompt says what that edit
 * was and how its runs differed.
 */
export interface BuiltinRunFinding {
  /** The rules the built-in repairer applied. */
  rules: string;
  /** The directive lines its candidate added. */
  directives: string[];
  /** Check 7's rejection, the text a follow-up turn would carry. */
  reason: string;
}

export function builtinRunFinding(answer: string, rules: string, reason: string): BuiltinRunFinding {
  const added = answer
    .split('\n')
    .filter((line) => line.startsWith('+') && !line.startsWith('+++'))
    .map((line) => line.slice(1));
  return { rules, directives: added.filter(isOmpPragma).map((line) => line.trim()), reason };
}

export function rungPrompt(o: {
  ladder: PromptLadder;
  conversation: number;
  task: RepairTask;
  limits: Limits;
  builtinFinding?: BuiltinRunFinding | null;
}): BuiltPrompt {
  const template = rungFor(o.ladder, o.conversation);
  const { task, limits } = o;
  const finding = o.builtinFinding ? builtinFindingText(o.builtinFinding, limits.maxErrorChars) : '';
  // DiscoPoP's templates get the compiler's output as DiscoPoP sends it; ours get it parsed, with project paths.
  const diagnostics = cutText(
    template.braces === 'single' ? task.build.output.trim() || '(none)' : diagnosticsText(task),
    limits.maxErrorChars,
  );
  const left = '(left out: the prompt size limit)';
  const base: RungValues = {
    suggestion_id: task.suggestion.id,
    pattern_type: task.suggestion.pattern?.type ?? 'no DiscoPoP pattern entry',
    files: task.suggestion.files.map((f) => f.source.relPath).join(', '),
    generated_patches: generatedPatchesText(task),
    diagnostics,
    source_context: '',
    context_lines: String(limits.contextLines),
    discopop_findings: findingsText(task.suggestion.pattern),
    identity: identityText(task),
    patch_blocks: patchBlocksText(task),
    original_source: '',
    patched_source: '',
    pattern_metadata: patternMetadataText(task.suggestion.pattern),
    output_contract: outputContractText(task),
  };
  const render = (values: RungValues) => renderTemplate(template, values) + finding;
  const showsSource = ['source_context', 'original_source', 'patched_source'].some((name) =>
    template.placeholders.has(name),
  );
  const withSource = (lines: number): RungValues => ({
    ...base,
    context_lines: String(lines),
    source_context: sourceContextText(task, lines),
    original_source: sourceWindowsText(task, 'original', lines),
    patched_source: sourceWindowsText(task, 'patched', lines),
  });

  // Shrink the context window step by step until the prompt fits or no context is left.
  for (let lines = limits.contextLines; ; lines = Math.floor(lines / 2)) {
    const text = render(withSource(lines));
    if (text.length <= limits.maxPromptChars) return { text, template: template.name };
    if (lines === 0 || !showsSource) break;
  }
  const withoutContext: RungValues = {
    ...base,
    context_lines: '0',
    source_context: left,
    original_source: left,
    patched_source: left,
  };
  let text = render(withoutContext);
  if (text.length <= limits.maxPromptChars) return { text, template: template.name };
  const withoutFindings: RungValues = { ...withoutContext, discopop_findings: left, pattern_metadata: left };
  text = render(withoutFindings);
  const over = text.length - limits.maxPromptChars;
  if (over > 0) {
    const room = Math.max(0, diagnostics.length - over);
    text = render({ ...withoutFindings, diagnostics: cutText(diagnostics, room) });
  }
  return { text, template: template.name };
}

export function followUpPrompt(o: {
  ladder: PromptLadder;
  task: RepairTask;
  check: string;
  reason: string;
  limits: Limits;
}): BuiltPrompt {
  const reason = cutText(o.reason, o.limits.maxErrorChars);
  const text = renderTemplate(o.ladder.followUp, {
    check: o.check,
    reason,
    suggestion_id: o.task.suggestion.id,
    files: o.task.suggestion.files.map((f) => f.source.relPath).join(', '),
    failure: reason,
    output_contract: outputContractText(o.task),
  });
  return { text, template: o.ladder.followUp.name };
}

function builtinFindingText(finding: BuiltinRunFinding, maxChars: number): string {
  const directives = finding.directives.length > 0 ? `\n\n\`\`\`\n${finding.directives.join('\n')}\n\`\`\`` : '';
  return [
    '',
    '',
    '## What the built-in repairer tried',
    '',
    `The built-in repairer (${finding.rules}) fixed the compiler errors with the directive below; it builds and keeps the directives, but check 7 (--check-run, the program run with execute.sh) rejected it. Do not give that answer again.${directives}`,
    '',
    cutText(finding.reason, maxChars),
    '',
  ].join('\n');
}

/**
 * Keeps the head (the first errors are the ones that matter) in whole lines, and says how much was
 * dropped: half a diagnostic would read as another one.
 */
export function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const note = (cut: number, more: string) => `[… ${cut} ${more}characters cut]`;
  const room = maxChars - note(text.length, 'more ').length - 1;
  const end = room > 0 ? text.lastIndexOf('\n', room) : -1;
  // Without room for a whole line and the note, the note alone: a cut that says nothing reads as "no errors".
  if (end <= 0) return note(text.length, '');
  return `${text.slice(0, end)}\n${note(text.length - end - 1, 'more ')}`;
}

function generatedPatchesText(task: RepairTask): string {
  return task.suggestion.files
    .map((file) => {
      const text = task.generated.get(file.fileId) ?? file.text;
      return `### ${file.source.relPath}\n\n\`\`\`diff\n${text}${text.endsWith('\n') ? '' : '\n'}\`\`\``;
    })
    .join('\n\n');
}

/** Project-relative diagnostics when the build stage parsed them; its raw output otherwise. */
function diagnosticsText(task: RepairTask): string {
  const { build } = task;
  if (build.diagnostics.length === 0) return build.output.trim() || '(the build failed without any output)';
  return build.diagnostics.map(renderDiagnostic).join('\n');
}

/**
 * One diagnostic as the compiler printed it, with its notes; a warning that failed the build says
 * so, since the model would otherwise take it for something it may leave.
 */
export function renderDiagnostic(d: Diagnostic): string {
  const notes = d.notes.map((note) => `\n  ${placeOf(note)}: note: ${note.message}`).join('');
  const fails = d.failsBuild ? ' (fails the build: the compiler ignored part of a directive the patch adds)' : '';
  return `${placeOf(d)}: ${d.severity}: ${d.message}${fails}${notes}`;
}

function placeOf(d: { file: string; line?: number; column?: number }): string {
  return [d.file, d.line, d.column].filter((part) => part !== undefined).join(':');
}

/** The original source around every hunk of the generated patch, numbered like the file. */
export function sourceContextText(task: RepairTask, contextLines: number): string {
  const blocks: string[] = [];
  for (const file of task.suggestion.files) {
    const source = task.sources.get(file.fileId);
    if (source === undefined) continue;
    for (const { from, to, text } of numberedWindows(
      source,
      task.generated.get(file.fileId) ?? file.text,
      'original',
      contextLines,
    )) {
      blocks.push(`### ${file.source.relPath}, lines ${from}-${to}\n\n\`\`\`\n${text}\n\`\`\``);
    }
  }
  return blocks.join('\n\n') || '(no source available)';
}

function findingsText(pattern: PatternInfo | null): string {
  if (!pattern) return 'DiscoPoP recorded no findings for this suggestion (it has no entry in explorer/patterns.json).';
  const list = (values: string[]) => (values.length > 0 ? values.join(', ') : '(none)');
  return [
    `- pattern: ${pattern.type} (pattern id ${pattern.patternId})`,
    `- loop: file ${pattern.fileId}, lines ${pattern.startLine}-${pattern.endLine}`,
    ...(pattern.pragma ? [`- suggested directive: ${pattern.pragma}`] : []),
    ...(pattern.collapseLevel !== undefined && pattern.collapseLevel > 1
      ? [`- collapse level: ${pattern.collapseLevel}`]
      : []),
    `- shared: ${list(pattern.shared)}`,
    `- private: ${list(pattern.private)}`,
    `- firstprivate: ${list(pattern.firstPrivate)}`,
    `- lastprivate: ${list(pattern.lastPrivate)}`,
    `- reduction: ${list(pattern.reduction)}`,
  ].join('\n');
}
