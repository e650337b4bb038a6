// The values DiscoPoP's own templates expect (`{identity}`, `{patch_blocks}`, `{original_source}`,
// `{patched_source}`, `{pattern_metadata}`, `{output_contract}`), carrying what DiscoPoP puts in
// them in patch-repair's own wording, so a user's DiscoPoP template set gets the same facts. The
// output contract asks for DiscoPoP's ===BEGIN PATCH <file_id>=== blocks, which extraction reads.
import path from 'node:path';
import type { PatternInfo } from '../formats/types.js';
import type { RepairTask } from '../formats/task.js';
import { numberedWindows, type PatchSide } from './source-windows.js';

export function identityText(task: RepairTask): string {
  const implicated = implicatedFileIds(task);
  return [
    '## Suggestion under repair',
    '',
    `* Suggestion ${task.suggestion.id}, a ${task.suggestion.pattern?.type ?? 'pattern of unknown type'} suggestion of DiscoPoP`,
    '* Its files, each with the id DiscoPoP gave it:',
    ...task.suggestion.files.map(
      (file) =>
        `    * file id ${file.fileId}: ${file.source.path}${implicated.has(file.fileId) ? ' (the build fails in this file)' : ''}`,
    ),
  ].join('\n');
}

export function patchBlocksText(task: RepairTask): string {
  const blocks = task.suggestion.files.map((file) => {
    const text = task.generated.get(file.fileId) ?? file.text;
    return `### ${path.basename(file.source.path)}, file id ${file.fileId}\n\n\`\`\`\n${text.replace(/\n+$/, '')}\n\`\`\`\n`;
  });
  return ['## Generated patch that does not build', '', ...blocks].join('\n');
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
    const label = side === 'original' ? 'without the patch' : 'with the patch applied';
    blocks.push(
      `### ${path.basename(file.source.path)}, file id ${file.fileId}, ${label}\n`,
      '```',
      windowText(source, patch, side, contextLines),
      '```\n',
    );
  }
  return blocks.length > 0 ? blocks.join('\n') : '(no source to show)';
}

function windowText(source: string, patch: string, side: PatchSide, contextLines: number): string {
  const windows = numberedWindows(source, patch, side, contextLines);
  return windows.map((window) => window.text).join(`\n${' '.repeat(windows[0]?.width ?? 1)}  ...\n`);
}

export function patternMetadataText(pattern: PatternInfo | null): string {
  if (pattern === null) return "(DiscoPoP's output has no pattern record for this suggestion.)";
  const clauses: [string, string[]][] = [
    ['private', pattern.private],
    ['firstprivate', pattern.firstPrivate],
    ['lastprivate', pattern.lastPrivate],
    ['shared', pattern.shared],
    ['reduction', pattern.reduction],
  ];
  return [
    ...(pattern.pragma ? [`* The directive as generated: \`${pattern.pragma}\``] : []),
    ...clauses.map(([clause, values]) => `* \`${clause}\`: ${values.length > 0 ? values.join(', ') : '(none)'}`),
    ...(pattern.scheduling !== undefined ? [`* Schedule: ${pattern.scheduling}`] : []),
    ...(pattern.collapseLevel !== undefined && pattern.collapseLevel > 0
      ? [`* Loops collapsed: ${pattern.collapseLevel}`]
      : []),
    ...(pattern.averageIterationCount !== undefined
      ? [`* Iterations on average: ${pattern.averageIterationCount}`]
      : []),
    `* Region: from ${pattern.fileId}:${pattern.startLine} to ${pattern.fileId}:${pattern.endLine} (file id:line)`,
  ].join('\n');
}

/**
 * How to answer, for the file ids of this suggestion: the blocks DiscoPoP's tool and our
 * extraction read, and the rules a repair is checked against, so a template written for DiscoPoP
 * gets the same contract it was tuned with. The marker lines are a format and stay exact.
 */
export function outputContractText(task: RepairTask): string {
  const ids = task.suggestion.files.map((file) => file.fileId);
  const example = ids[0] ?? '0';
  return [
    '## Answer format',
    '',
    'Reply in text alone. Every tool is off limits: reading or changing files and running commands',
    'would only reach a project on disk that is not the one this patch was generated for, and this',
    'message already holds all you need.',
    '',
    'The reply is the corrected patch and only that: no remarks around the blocks and no code',
    'fences within them.',
    '',
    'Write one block for each file whose patch has to change; leave out the files whose patch is',
    'fine. A block looks like this, with the file id in both marker lines:',
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
    `File ids you may use here: ${ids.join(', ')}.`,
    '',
    'What a correct block must respect:',
    '',
    '* **Its diff is taken against the file as it was before any patch.** The generated patch is',
    '  what puts the OpenMP directive there, so that file has no directive yet. Fix a directive by',
    '  editing the `+` line that adds it. A diff that deletes the directive and adds a new one',
    '  finds nothing to delete and fails.',
    '* **The `#pragma omp` directives stay.** Dropping them would make the code build and the',
    '  suggestion pointless; such an answer fails.',
    '* Fix the clauses of the directive (`private`, `firstprivate`, `shared`, `reduction`,',
    '  `collapse`) rather than rewriting the code, where that is enough.',
    '* Touch only the lines of the region the generated patch changes.',
    '* The numbers in `@@` lines may be off, as the patch is rebuilt once it applies; the context',
    '  lines may not: they must be the code exactly as it is.',
  ].join('\n');
}

function implicatedFileIds(task: RepairTask): Set<string> {
  return new Set(task.build.diagnostics.map((d) => d.fileId).filter((id): id is string => id !== undefined));
}
