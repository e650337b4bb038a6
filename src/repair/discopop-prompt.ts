// The values DiscoPoP's own templates expect (`{identity}`, `{patch_blocks}`, `{original_source}`,
// `{patched_source}`, `{pattern_metadata}`, `{output_contract}`), in the shape DiscoPoP's
// prompts.py gives them, so a user's DiscoPoP template set reads as it did there. The output
// contract asks for DiscoPoP's ===BEGIN PATCH <file_id>=== blocks, which extraction reads.
import path from 'node:path';
import type { PatternInfo } from '../formats/types.js';
import type { RepairTask } from '../formats/task.js';
import { numberedWindows, type PatchSide } from './source-windows.js';

export function identityText(task: RepairTask): string {
  const implicated = implicatedFileIds(task);
  return [
    '## The suggestion',
    '',
    `* DiscoPoP suggestion id: ${task.suggestion.id}`,
    `* Pattern type: ${task.suggestion.pattern?.type ?? 'unknown'}`,
    '* Files (DiscoPoP file id -> path):',
    ...task.suggestion.files.map(
      (file) =>
        `    * ${file.fileId} -> ${file.source.path}${implicated.has(file.fileId) ? '  <- the compiler errors are in this file' : ''}`,
    ),
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
    blocks.push(
      `### File id ${file.fileId} (${path.basename(file.source.path)}), ${label} the patch\n`,
      '```',
      windowText(source, patch, side, contextLines),
      '```\n',
    );
  }
  return blocks.length > 0 ? blocks.join('\n') : '(not included)';
}

function windowText(source: string, patch: string, side: PatchSide, contextLines: number): string {
  const windows = numberedWindows(source, patch, side, contextLines);
  return windows.map((window) => window.text).join(`\n${' '.repeat(windows[0]?.width ?? 1)}  ...\n`);
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
    ...(pattern.collapseLevel !== undefined && pattern.collapseLevel > 0
      ? [`* Collapse level: ${pattern.collapseLevel}`]
      : []),
    ...(pattern.averageIterationCount !== undefined
      ? [`* Average iteration count: ${pattern.averageIterationCount}`]
      : []),
    `* Region (file id:line): ${pattern.fileId}:${pattern.startLine} to ${pattern.fileId}:${pattern.endLine}`,
  ].join('\n');
}

/**
 * DiscoPoP's answer format, spelled out for the file ids of this suggestion, saying everything
 * DiscoPoP's own contract says (prompts.py `output_contract`): a DiscoPoP template set was written
 * and tuned against that text.
 */
export function outputContractText(task: RepairTask): string {
  const ids = task.suggestion.files.map((file) => file.fileId);
  const example = ids[0] ?? '0';
  return [
    '## How to answer',
    '',
    '**Use no tools.** Do not read or edit files and do not run commands: everything you need is in',
    'this message, and the project you would find on disk is not the one this patch belongs to.',
    'Answer with text only.',
    '',
    'Answer with the corrected patch and nothing else -- no explanation outside the blocks, no code fences inside them.',
    '',
    'Give **one block per file whose patch must change**, and no block for a file whose patch is',
    'already right:',
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
    '* **Write the diff against the ORIGINAL, UNPATCHED file.** This is the easiest thing to get',
    '  wrong here: the patch above *adds* the OpenMP directive, so the original file does not contain',
    '  it. To change the directive, change the `+` line of the patch. A diff that removes the current',
    '  directive and adds a corrected one has nothing to remove in the original file and is rejected.',
    '* **Keep the parallelization.** Do not delete the `#pragma omp` directives: a patch that fixes',
    '  the error by removing them compiles, but turns the suggestion into a no-op, and is rejected.',
    "* Prefer correcting the directive's clauses (`private`, `firstprivate`, `shared`, `reduction`,",
    '  `collapse`) over restructuring the code.',
    '* Change nothing outside the region the original patch touches.',
    '* The line numbers in the `@@` headers need not be exact (the patch is re-derived once it',
    '  applies), but the context lines must match the real code.',
  ].join('\n');
}

function implicatedFileIds(task: RepairTask): Set<string> {
  return new Set(task.build.diagnostics.map((d) => d.fileId).filter((id): id is string => id !== undefined));
}
