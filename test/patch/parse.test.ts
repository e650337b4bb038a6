// Reading unified diffs as models and DiscoPoP write them: the generator's header form, prose
// around raw diffs, several files, wrong or missing hunk counts, CRLF and trimmed blank context.
import { describe, expect, it } from 'vitest';
import { parsePatches } from '../../src/patch/parse.js';
import { GENERATED_21, REDUCTION_PRAGMA } from './fixtures.js';

const HUNK = [
  '@@ -8,6 +8,7 @@',
  '         a[i] = i * 0.5;',
  '         b[i] = i * 2.0;',
  '     }',
  `+${REDUCTION_PRAGMA}`,
  '     for (i = 0; i < N; i++) {',
  '         sum += a[i] * b[i];',
  '     }',
];

describe('parsePatches', () => {
  it('reads the generator form: absolute paths, timestamps, the .discopop_patch_generator.temp suffix', () => {
    const { patches, problems } = parsePatches(GENERATED_21);
    expect(problems).toEqual([]);
    expect(patches).toHaveLength(1);
    expect(patches[0]).toMatchObject({ oldPath: '/home/dev/demo/src/main.c', newPath: '/home/dev/demo/src/main.c' });
    const hunk = patches[0]!.hunks[0]!;
    expect(hunk.oldStart).toBe(8);
    expect(hunk.recounted).toBe(false);
    expect(hunk.lines.map((line) => line.kind)).toEqual([
      'context',
      'context',
      'context',
      'add',
      'context',
      'context',
      'context',
    ]);
    expect(hunk.lines[3]!.text).toBe(REDUCTION_PRAGMA);
  });

  it.each([
    ['```diff', '```'],
    ['```patch', '```'],
    ['```', '```'],
    ['~~~', '~~~'],
  ])('finds a diff fenced with %s inside prose', (open, close) => {
    const answer = [
      'Here is the fix:',
      '',
      open,
      '--- a/src/main.c',
      '+++ b/src/main.c',
      ...HUNK,
      close,
      '',
      '- the clause now names only a and b',
    ].join('\n');
    const { patches } = parsePatches(answer);
    expect(patches).toHaveLength(1);
    expect(patches[0]!.oldPath).toBe('src/main.c');
    expect(patches[0]!.hunks[0]!.lines).toHaveLength(7);
  });

  it('stops a raw diff at the prose that follows it, even a markdown list item', () => {
    const answer = ['--- src/main.c', '+++ src/main.c', ...HUNK, '', '- removed private(i): i is the loop index'].join(
      '\n',
    );
    const hunk = parsePatches(answer).patches[0]!.hunks[0]!;
    expect(hunk.lines).toHaveLength(7);
    expect(hunk.recounted).toBe(false);
  });

  it('reads several files in one answer', () => {
    const answer = [
      '--- a/src/a.c',
      '+++ b/src/a.c',
      '@@ -1,2 +1,3 @@',
      ' int x;',
      '+int y;',
      ' int z;',
      '--- a/include/b.h',
      '+++ b/include/b.h',
      '@@ -3 +3 @@',
      '-old',
      '+new',
    ].join('\n');
    const { patches } = parsePatches(answer);
    expect(patches.map((patch) => patch.oldPath)).toEqual(['src/a.c', 'include/b.h']);
    expect(patches[1]!.hunks[0]!.lines).toEqual([
      { kind: 'remove', text: 'old' },
      { kind: 'add', text: 'new' },
    ]);
  });

  it('recounts a hunk whose header counts disagree with its body, and says so', () => {
    const answer = ['--- src/main.c', '+++ src/main.c', '@@ -8,4 +8,9 @@', ...HUNK.slice(1)].join('\n');
    const { patches, problems } = parsePatches(answer);
    expect(patches[0]!.hunks[0]!.lines).toHaveLength(7);
    expect(patches[0]!.hunks[0]!.recounted).toBe(true);
    expect(problems[0]).toMatch(/@@ -8,4 \+8,9 @@ disagrees with its body; recounted/);
  });

  it('accepts a hunk header without numbers and a block without file header', () => {
    const { patches } = parsePatches(['@@ @@', ...HUNK.slice(1)].join('\n'));
    expect(patches[0]!.oldPath).toBeNull();
    expect(patches[0]!.hunks[0]!.oldStart).toBeNull();
    expect(patches[0]!.hunks[0]!.lines).toHaveLength(7);
  });

  it('reads CRLF answers and blank context lines whose space was trimmed', () => {
    const body = [
      '--- src/k.c',
      '+++ src/k.c',
      '@@ -1,4 +1,5 @@',
      ' int a;',
      '',
      '+#pragma omp parallel for ',
      ' for (;;) {}',
      ' int b;',
    ].join('\r\n');
    const hunk = parsePatches(body).patches[0]!.hunks[0]!;
    expect(hunk.lines.map((line) => line.text)).toEqual([
      'int a;',
      '',
      '#pragma omp parallel for ',
      'for (;;) {}',
      'int b;',
    ]);
    expect(hunk.recounted).toBe(false);
  });

  it('records "\\ No newline at end of file" for the side it follows', () => {
    const answer = ['--- k.c', '+++ k.c', '@@ -1,2 +1,2 @@', ' a', '-b', '\\ No newline at end of file', '+b', ''].join(
      '\n',
    );
    const hunk = parsePatches(answer).patches[0]!.hunks[0]!;
    expect(hunk.oldNoNewlineAtEnd).toBe(true);
    expect(hunk.newNoNewlineAtEnd).toBe(false);
  });

  it('reports an answer without any hunk', () => {
    expect(parsePatches('I could not find the problem.').problems).toEqual([
      'no unified diff hunk (`@@ ... @@`) found',
    ]);
  });

  it('keeps a removed line that starts with "--- " when the header counts say it belongs to the hunk', () => {
    const answer = ['--- k.c', '+++ k.c', '@@ -1,2 +1,1 @@', ' a', '--- x;', '+++ y;'].join('\n');
    const hunk = parsePatches(answer).patches[0]!.hunks[0]!;
    expect(hunk.lines).toEqual([
      { kind: 'context', text: 'a' },
      { kind: 'remove', text: '-- x;' },
      { kind: 'add', text: '++ y;' },
    ]);
  });
});

describe("DiscoPoP's answer contract: ===BEGIN PATCH <file_id>=== blocks", () => {
  it('names each block by the id in its marker, whatever its header says, and reads only the blocks', () => {
    const answer = [
      'The generated patch was:',
      '',
      '```diff',
      '--- src/main.c',
      '+++ src/main.c',
      ...HUNK,
      '```',
      '',
      'The corrected patch:',
      '',
      '```',
      '===BEGIN PATCH 7===',
      '--- a/main.c',
      '+++ b/main.c',
      ...HUNK,
      '===END PATCH 7===',
      '=== begin patch 12 ===',
      '@@ -3 +3 @@',
      '-old',
      '+new',
      '=== END PATCH 12 ===',
      '```',
    ].join('\n');
    const { patches, problems, refusals } = parsePatches(answer);
    expect(refusals).toEqual([]);
    expect(patches.map((patch) => [patch.markedFileId, patch.oldPath])).toEqual([
      ['7', 'main.c'],
      ['12', null],
    ]);
    expect(patches[0]!.hunks[0]!.lines).toHaveLength(7);
    expect(problems).toEqual(['src/main.c: outside the ===BEGIN PATCH <file_id>=== blocks; ignored']);
  });

  it('refuses a block closed under another id', () => {
    const answer = ['===BEGIN PATCH 1===', '--- a/main.c', '+++ b/main.c', ...HUNK, '===END PATCH 2==='].join('\n');
    expect(parsePatches(answer).refusals).toEqual([
      "===END PATCH 2=== closes the block opened by ===BEGIN PATCH 1===; open and close each file's block with its own file id",
    ]);
  });
});

describe("OpenAI's apply_patch format (V4A)", () => {
  const update = [
    'I updated the reduction clause:',
    '',
    '*** Begin Patch',
    '*** Update File: src/main.c',
    '@@ int main(void) {',
    '     }',
    '-    #pragma omp parallel for private(i) shared(a,b,tmp_var37) reduction(+:sum) ',
    '+    #pragma omp parallel for private(i) shared(a,b) reduction(+:sum) ',
    '     for (i = 0; i < N; i++) {',
    '',
    '         sum += a[i] * b[i];',
    '@@',
    '-    printf("%f\\n", sum);',
    '+    printf("%g\\n", sum);',
    '*** End of File',
    '*** End Patch',
    '',
    '- tmp_var37 is an LLVM temporary, not a variable of the program.',
  ].join('\n');

  it('reads an update as hunks without line numbers, its @@ line as an anchor, an empty line inside a hunk as empty context', () => {
    const { patches, problems, refusals } = parsePatches(update);
    expect(refusals).toEqual([]);
    expect(problems).toEqual([]);
    expect(patches).toHaveLength(1);
    expect(patches[0]).toMatchObject({ oldPath: 'src/main.c', newPath: 'src/main.c' });
    const [first, second] = patches[0]!.hunks;
    expect(first).toMatchObject({ oldStart: null, anchors: ['int main(void) {'], recounted: false });
    expect(first!.lines.map((line) => line.kind)).toEqual([
      'context',
      'remove',
      'add',
      'context',
      'context',
      'context',
    ]);
    expect(first!.lines[4]).toEqual({ kind: 'context', text: '' });
    expect(second!.anchors).toBeUndefined();
    expect(second!.lines).toEqual([
      { kind: 'remove', text: '    printf("%f\\n", sum);' },
      { kind: 'add', text: '    printf("%g\\n", sum);' },
    ]);
  });

  it('reads an update a model wrote with unified headers inside, taking the hunk start as a hint', () => {
    const answer = [
      '*** Begin Patch',
      '*** Update File: src/main.c',
      '--- a/src/main.c',
      '+++ b/src/main.c',
      ...HUNK,
      '*** End Patch',
    ].join('\n');
    const hunk = parsePatches(answer).patches[0]!.hunks[0]!;
    expect(hunk.oldStart).toBe(8);
    expect(hunk.lines).toHaveLength(7);
  });

  it.each([
    [
      '*** Add File: src/omp_helpers.h',
      ['+#include <omp.h>'],
      /^`\*\*\* Add File: src\/omp_helpers\.h`: a repair never adds a file/,
    ],
    ['*** Delete File: src/old.c', [], /^`\*\*\* Delete File: src\/old\.c`: a repair never deletes a file/],
  ])('refuses %s with a reason', (operation, body, reason) => {
    const answer = ['*** Begin Patch', operation, ...body, '*** End Patch'].join('\n');
    const { refusals } = parsePatches(answer);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatch(reason);
  });

  it('refuses an update that renames the file', () => {
    const answer = [
      '*** Begin Patch',
      '*** Update File: src/main.c',
      '*** Move to: src/main_omp.c',
      '@@',
      '-a',
      '+b',
      '*** End Patch',
    ].join('\n');
    expect(parsePatches(answer).refusals).toEqual([
      '`*** Move to: src/main_omp.c` (in the update of src/main.c): a repair never renames a file; change it where it is',
    ]);
  });
});

describe('slips of real models around a unified diff', () => {
  it('ends the hunk at a stray "*** End Patch" after it, with or without the opening line', () => {
    for (const wrap of [[], ['*** Begin Patch']]) {
      const answer = [...wrap, '--- a/src/main.c', '+++ b/src/main.c', ...HUNK, '*** End Patch'].join('\n');
      const { patches, problems, refusals } = parsePatches(answer);
      expect([problems, refusals]).toEqual([[], []]);
      expect(patches[0]!.hunks[0]!.lines).toHaveLength(7);
    }
  });
});
