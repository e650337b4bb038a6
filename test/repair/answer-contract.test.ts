// The answer format the DiscoPoP templates' {output_contract} states is one both readers agree on:
// an answer written as the text says is read by patch-repair's extraction and by a model of
// DiscoPoP's reader (test/helpers/discopop-answer.ts) as the same diff for the same file.
import { describe, expect, it } from 'vitest';
import { extractAlternatives } from '../../src/repair/checks/extraction.js';
import { outputContractText } from '../../src/repair/discopop-prompt.js';
import { parsePatches } from '../../src/patch/parse.js';
import type { RepairTask } from '../../src/formats/task.js';
import { readAsDiscopop } from '../helpers/discopop-answer.js';
import { GENERATED_PATCH, GOOD_DIRECTIVE, MAIN_C } from './project.js';

const ROOT = '/home/dev/demo';
const HELPER_C = 'double scale(double x) {\n    return 2.0 * x;\n}\n';
const HELPER_PATCH = `--- ${ROOT}/src/helper.c\n+++ ${ROOT}/src/helper.c.discopop_patch_generator.temp\n@@ -1,3 +1,3 @@\n double scale(double x) {\n-    return 2.0 * x;\n+    return x + x;\n }\n`;

/** A suggestion over two files, ids 3 and 12, whose build fails in main.c. */
function twoFileTask(): RepairTask {
  const generated = GENERATED_PATCH.replaceAll('<root>', ROOT);
  const file = (fileId: string, relPath: string, text: string) => ({
    fileId,
    patchPath: `${ROOT}/.discopop/patch_generator/7/${fileId}.patch`,
    text,
    source: { id: fileId, path: `${ROOT}/${relPath}`, relPath },
  });
  return {
    suggestion: {
      id: '7',
      dir: `${ROOT}/.discopop/patch_generator/7`,
      files: [file('3', 'src/main.c', generated), file('12', 'src/helper.c', HELPER_PATCH)],
      pattern: null,
      hotspot: 'YES',
    },
    sources: new Map([
      ['3', MAIN_C],
      ['12', HELPER_C],
    ]),
    generated: new Map([
      ['3', generated],
      ['12', HELPER_PATCH],
    ]),
    patched: new Map([
      ['3', MAIN_C],
      ['12', HELPER_C],
    ]),
    build: {
      ok: false,
      failedAt: 'compile',
      output: '',
      diagnostics: [],
      errorClass: 'undeclared-in-clause',
      firstError: "'tmp_var37' undeclared",
      durationMs: 1,
    },
  };
}

/** The diff the answer carries: the generated hunk with the directive's clauses corrected, against the original. */
const REPAIR = [
  '--- a/src/main.c',
  '+++ b/src/main.c',
  '@@ -8,6 +8,7 @@',
  '         a[i] = i * 0.5;',
  '         b[i] = i * 2.0;',
  '     }',
  `+${GOOD_DIRECTIVE}`,
  '     for (i = 0; i < N; i++) {',
  '         sum += a[i] * b[i];',
  '     }',
  '',
].join('\n');

/**
 * An answer as the contract asks: its example block's marker lines, taken from the text, with the
 * example's id replaced by the file's and the example diff by a real one; one block per changed
 * file and nothing else.
 */
function answerFollowing(contract: string, fileId: string, diff: string): string {
  const example = /```\n(===BEGIN PATCH (\d+)===)\n[\s\S]*?\n(===END PATCH \2===)\n```/.exec(contract);
  expect(example, 'the contract shows an example block').not.toBeNull();
  const [, begin, exampleId, end] = example!;
  return `${begin!.replace(exampleId!, fileId)}\n${diff}${end!.replace(exampleId!, fileId)}\n`;
}

describe("the DiscoPoP templates' output contract", () => {
  const task = twoFileTask();
  const contract = outputContractText(task);

  it('names the file ids an answer may use, and shows the block with the first of them', () => {
    expect(contract).toContain('File ids you may use here: 3, 12.');
    expect(contract).toContain('===BEGIN PATCH 3===\n--- a/<path>');
    expect(contract).toContain('===END PATCH 3===');
  });

  it('is read the same by our extraction and by DiscoPoP’s reader when an answer follows it', () => {
    const answer = answerFollowing(contract, '3', REPAIR);
    const theirs = readAsDiscopop(answer, [3, 12]);
    expect(theirs).toEqual({ ok: true, diffs: new Map([[3, REPAIR]]) });

    const ours = extractAlternatives(answer, task, { projectRoot: ROOT });
    expect(ours.ok, ours.ok ? '' : ours.reason).toBe(true);
    if (!ours.ok) return;
    expect(ours.value).toHaveLength(1);
    expect([...ours.value[0]!.byFileId.keys()]).toEqual(['3']);
    expect(ours.value[0]!.byFileId.get('3')!.hunks).toEqual(parsePatches(REPAIR).patches[0]!.hunks);
  });

  it('reads a block for each of two files alike, whichever order they come in', () => {
    const helper = HELPER_PATCH.replace('+    return x + x;', '+    return x * 2.0;')
      .replace(/^--- .*$/m, '--- a/src/helper.c')
      .replace(/^\+\+\+ .*$/m, '+++ b/src/helper.c');
    const answer = answerFollowing(contract, '12', helper) + answerFollowing(contract, '3', REPAIR);
    const theirs = readAsDiscopop(answer, [3, 12]);
    expect(theirs.ok && [...theirs.diffs.entries()]).toEqual([
      [12, helper],
      [3, REPAIR],
    ]);
    const ours = extractAlternatives(answer, task, { projectRoot: ROOT });
    expect(ours.ok && ours.value.map((alternative) => [...alternative.byFileId.keys()].sort())).toEqual([['12', '3']]);
  });

  it('makes both readers refuse a block for a file id the contract did not list', () => {
    const answer = answerFollowing(contract, '4', REPAIR);
    expect(readAsDiscopop(answer, [3, 12])).toEqual({ ok: false, reason: 'file id 4 is not one of 3, 12' });
    expect(extractAlternatives(answer, task, { projectRoot: ROOT }).ok).toBe(false);
  });
});
