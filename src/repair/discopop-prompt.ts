// The values DiscoPoP's own templates expect (`{identity}`, `{patch_blocks}`, `{original_source}`,
// `{patched_source}`, `{pattern_metadata}`, `{output_contract}`), in the shape DiscoPoP's
// prompts.py gives them, so a user's DiscoPoP template set reads as it did there. The output
// contract asks for DiscoPoP's ===BEGIN PATCH <file_id>=== blocks, which extraction reads.
import path from 'node:path';
import type { PatternInfo } from '../formats/types.js';
import type { RepairTask } from '../formats/task.js';
import { sourceLines, sourceWindows, type PatchSide } from './source-windows.js';

export function identityText(task: RepairTask): string {
  const implicated = implicatedFileIds(task);
  return [
    '## The suggestion',
    '',
    `* DiscoPoP suggestion id: ${task.suggestion.id}`,
    `* Pattern type: ${task.suggestion.pattern?.type ?? 'unknown'}`,
    '* Files (DiscoPoP file id -> path):',
    ...task.suggestion.files.map((file) => `    * ${file.fileId} -> ${file.source.path}${implicated.has(file.fileId) ? '  <- the compiler errors are in this file' : ''}`),
  ].join('\n');
}

export function patchBlocksText(task: RepairTask): string {
  const blocks = task.suggestion.files.map((file) => {
    const text = task.generated.get(file.fileId) ?? file.text;
    return `### File id ${file.fileId} (${path.basename(file.source.path)})\n\n\`\`\`\n${text.replace(/\n+$/, '')}\n\`\`\`\n`;
  });
  return ['## The patch to fix', '', ...blocks].join('\n');
}

/**
 * Each file's source before (`original`) or after (`patched`) the generated patch, in the windows
 * sourceWindows() gives, numbered like the file, with `...` where lines are left out.
 */
export function sourceWindowsText(task: RepairTask, side: PatchSide, contextLines: number): string {
  const blocks: string[] = [];
  for (const file of task.suggestion.files) {
    const source = (side === 'original' ? task.sources : task.patched).get(file.fileId);
    if (source === undefined) continue;
    const patch = task.generated.get(file.fileId) ?? file.text;
    const label = side === 'original' ? 'before' : 'after';
    blocks.push(`### File id ${file.fileId} (${path.basename(file.source.path)}), ${label} the patch\n`, '```', windowText(source, patch, side, contextLines), '```\n');
  }
  return blocks.length > 0 ? blocks.join('\n') : '(not included)';
}

function windowText(source: string, patch: string, side: PatchSide, contextLines: number): string {
  const lines = sourceLines(source);
  const width = String(lines.length).length;
  return sourceWindows(patch, side, lines.length, contextLines)
    .map(([from, to]) => lines.slice(from - 1, to).map((line, index) => `${String(from + index).padStart(width)}  ${line}`).join('\n'))
    .join(`\n${' '.repeat(width)}  ...\n`);
}

export function patternMetadataText(pattern: PatternInfo | null): string {
  if (pattern === null) return '(DiscoPoP recorded no further metadata for this suggestion.)';
  const clauses: [string, string[]][] = [
    ['private', pattern.private],
    ['firstprivate', pattern.firstPrivate],
    ['lastprivate', pattern.lastPrivate],
    ['shared', pattern.shared],
    ['reduction', pattern.reduction],
  ];
  return [
    ...(pattern.pragma ? [`* Directive DiscoPoP generated: \`${pattern.pragma}\``] : []),
    ...clauses.map(([clause, values]) => `* \`${clause}\`: ${values.length > 0 ? values.join(', ') : '(empty)'}`),
    ...(pattern.scheduling !== undefined ? [`* Scheduling: ${pattern.scheduling}`] : []),
    ...(pattern.collapseLevel !== undefined && pattern.collapseLevel > 0 ? [`* Collapse level: ${pattern.collapseLevel}`] : []),
    ...(pattern.averageIterationCount !== undefined ? [`* Average iteration count: ${pattern.averageIterationCount}`] : []),
    `* Region (file id:line): ${pattern.fileId}:${pattern.startLine} to ${pattern.fileId}:${pattern.endLine}`,
  ].join('\n');
}

/** DiscoPoP's answer format, spelled out for the file ids of this suggestion. */
export function outputContractText(task: RepairTask): string {
  const ids = task.suggestion.files.map((file) => file.fileId);
  const example = ids[0] ?? '0';
  return [
    '## How to answer',
    '',
    'Use no tools: do not read or edit files or run commands. Everything you need is in this message; answer with text only.',
    '',
    'Answer with the corrected patch: one block per file whose patch must change, none for a file whose patch is already right, and no explanation inside the blocks:',
    '',
    '```',
    `===BEGIN PATCH ${example}===`,
    '--- a/<path>',
    '+++ b/<path>',
    '@@ ... @@',
    ' <context line>',
    '+<added line>',
    `===END PATCH ${example}===`,
    '```',
    '',
    `The file ids of this suggestion are: ${ids.join(', ')}.`,
    '',
    'Rules:',
    '',
    '* Write the diff against the original file, before the patch: the `#pragma omp` line the patch adds is not in it. To change the directive, change the `+` line of the patch.',
    '* Keep the parallelization: every `#pragma omp` directive the patch adds must stay above the same statement. Fix its clauses (`private`, `firstprivate`, `shared`, `reduction`, `collapse`) rather than removing it.',
    '* Change nothing outside the region the patch touches.',
    '* The line numbers in `@@` headers need not be exact, but context lines must match the code.',
  ].join('\n');
}

function implicatedFileIds(task: RepairTask): Set<string> {
  return new Set(task.build.diagnostics.map((d) => d.fileId).filter((id): id is string => id !== undefined));
}
