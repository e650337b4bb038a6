// What the model is shown: the rungs' content and the size limits. Pure: the task is built in
// memory from the same sources as the build tests use.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPromptLadder, type PromptLadder } from '../../src/repair/ladder.js';
import { builtinRunFinding, cutText, followUpPrompt, rungPrompt } from '../../src/repair/prompt.js';
import type { RepairTask } from '../../src/formats/task.js';
import type { Diagnostic, PatternInfo } from '../../src/formats/types.js';
import { GENERATED_PATCH, MAIN_C } from './project.js';

const ROOT = '/home/dev/demo';
const GENERATED = GENERATED_PATCH.replaceAll('<root>', ROOT);
const ERROR: Diagnostic = {
  file: 'src/main.c',
  fileId: '1',
  line: 11,
  column: 49,
  severity: 'error',
  message: "'tmp_var37' undeclared (first use in this function)",
  errorClass: 'undeclared-in-clause',
  notes: [
    {
      file: 'src/main.c',
      fileId: '1',
      line: 11,
      column: 49,
      message: 'each undeclared identifier is reported only once for each function it appears in',
    },
  ],
};
const PATTERN: PatternInfo = {
  type: 'reduction',
  patternId: 1,
  fileId: '1',
  startLine: 11,
  endLine: 13,
  pragma: '#pragma omp parallel for',
  firstPrivate: [],
  private: ['i'],
  lastPrivate: [],
  shared: ['a', 'b', 'tmp_var37'],
  reduction: ['+:sum'],
};

function task(o: { diagnostics?: Diagnostic[]; output?: string; pattern?: PatternInfo | null } = {}): RepairTask {
  const source = { id: '1', path: `${ROOT}/src/main.c`, relPath: 'src/main.c' };
  return {
    suggestion: {
      id: '1',
      dir: `${ROOT}/.discopop/patch_generator/1`,
      files: [{ fileId: '1', patchPath: `${ROOT}/.discopop/patch_generator/1/1.patch`, text: GENERATED, source }],
      pattern: o.pattern === undefined ? PATTERN : o.pattern,
      hotspot: 'YES',
    },
    sources: new Map([['1', MAIN_C]]),
    generated: new Map([['1', GENERATED]]),
    patched: new Map([['1', MAIN_C]]),
    build: {
      ok: false,
      failedAt: 'compile',
      output: o.output ?? '',
      diagnostics: o.diagnostics ?? [ERROR],
      errorClass: 'undeclared-in-clause',
      firstError: ERROR.message,
      durationMs: 1,
    },
  };
}
const limits = { contextLines: 60, maxErrorChars: 8000, maxPromptChars: 60000 };

let ladder: PromptLadder;
beforeAll(async () => {
  ladder = await loadPromptLadder();
});

describe('the rungs', () => {
  it('end with the directive of a built-in candidate check 7 rejected, and what its runs showed, on every rung', () => {
    const answer = `--- ${ROOT}/src/main.c\n+++ ${ROOT}/src/main.c\n@@ -9,3 +9,4 @@\n int i;\n+    #pragma omp parallel for shared(a) reduction(+:t)\n for (i = 0; i < N; i++) {\n`;
    const finding = builtinRunFinding(
      answer,
      'keep-strongest-data-sharing',
      'at 2 threads, run 1 of 3: line 3: `last 598` expected, `last 896` got',
    );
    expect(finding.directives).toEqual(['#pragma omp parallel for shared(a) reduction(+:t)']);
    for (const conversation of [1, 3]) {
      const { text } = rungPrompt({ ladder, conversation, task: task(), limits, builtinFinding: finding });
      expect(text).toMatch(
        /## What the built-in repairer tried\n\nThe built-in repairer \(keep-strongest-data-sharing\) .*\n\n```\n#pragma omp parallel for shared\(a\) reduction\(\+:t\)\n```\n\nat 2 threads, run 1 of 3: line 3: `last 598` expected, `last 896` got\n$/,
      );
    }
    expect(rungPrompt({ ladder, conversation: 1, task: task(), limits, builtinFinding: null }).text).not.toContain(
      'What the built-in repairer tried',
    );
  });

  it('rung 1 shows the generated patch whole and the diagnostics with project paths', () => {
    const { text, template } = rungPrompt({ ladder, conversation: 1, task: task(), limits });
    expect(template).toBe('rung-1.md');
    expect(text).toContain('suggestion 1 (reduction)');
    expect(text).toContain(`### src/main.c\n\n\`\`\`diff\n${GENERATED}\`\`\``);
    expect(text).toContain(
      "src/main.c:11:49: error: 'tmp_var37' undeclared (first use in this function)\n  src/main.c:11:49: note: each undeclared identifier",
    );
    expect(text).not.toMatch(/\{\{/);
  });

  it('rung 1 already shows the original source the answer applies to, numbered like the file', () => {
    const { text } = rungPrompt({ ladder, conversation: 1, task: task(), limits: { ...limits, contextLines: 2 } });
    expect(text).toContain('### src/main.c, lines 6-15\n\n```\n 6      double sum = 0.0;');
  });

  it('rung 2 adds the original source around the patched region, numbered like the file', () => {
    const { text } = rungPrompt({ ladder, conversation: 2, task: task(), limits: { ...limits, contextLines: 2 } });
    // The hunk covers lines 8-13 of the original; two lines on each side.
    expect(text).toContain(
      '### src/main.c, lines 6-15\n\n```\n 6      double sum = 0.0;\n 7      for (i = 0; i < N; i++) {',
    );
    expect(text).toContain('15      return 0;\n```');
    expect(text).toContain('Up to 2 lines on each side');
    expect(text).not.toContain('16  }');
  });

  it('rung 3 adds what DiscoPoP found, or says it found nothing', () => {
    const { text } = rungPrompt({ ladder, conversation: 3, task: task(), limits });
    expect(text).toContain('- loop: file 1, lines 11-13');
    expect(text).toContain('- shared: a, b, tmp_var37');
    expect(text).toContain('- reduction: +:sum');
    expect(text).toContain('- firstprivate: (none)');
    const without = rungPrompt({ ladder, conversation: 3, task: task({ pattern: null }), limits });
    expect(without.text).toContain('DiscoPoP recorded no findings for this suggestion');
    expect(without.text).toContain('suggestion 1 (no DiscoPoP pattern entry)');
  });

  it('falls back to the raw build output when no diagnostic was parsed', () => {
    const { text } = rungPrompt({
      ladder,
      conversation: 1,
      task: task({ diagnostics: [], output: 'ld: cannot find -lfoo\n' }),
      limits,
    });
    expect(text).toContain('```\nld: cannot find -lfoo\n```');
  });
});

describe('limits', () => {
  const many = Array.from({ length: 400 }, (_, i) => ({ ...ERROR, line: i + 1 }));

  it('cuts the diagnostics to --max-error-chars, keeping the first errors', () => {
    const { text } = rungPrompt({
      ladder,
      conversation: 1,
      task: task({ diagnostics: many }),
      limits: { ...limits, maxErrorChars: 300 },
    });
    const diagnostics = text.split('## Compiler diagnostics\n\n```\n')[1]!.split('\n```')[0]!;
    expect(diagnostics.length).toBeLessThanOrEqual(300);
    expect(diagnostics.startsWith('src/main.c:1:49: error:')).toBe(true);
    // Cut at a line end: every line kept is a whole diagnostic or its whole note.
    const lines = diagnostics.split('\n');
    expect(lines.at(-1)).toMatch(/^\[… \d+ more characters cut\]$/);
    const whole = many.flatMap((d) => [
      `src/main.c:${d.line}:49: error: ${ERROR.message}`,
      `  src/main.c:11:49: note: ${ERROR.notes[0]!.message}`,
    ]);
    expect(lines.slice(0, -1)).toEqual(whole.slice(0, lines.length - 1));
    expect(lines.length).toBeGreaterThan(1);
  });

  it('drops source context before anything else, and never cuts the patches', () => {
    const full = rungPrompt({ ladder, conversation: 2, task: task(), limits }).text;
    const noContext = rungPrompt({
      ladder,
      conversation: 2,
      task: task(),
      limits: { ...limits, contextLines: 0 },
    }).text;
    // Room for the prompt with one line of context but not with sixty.
    const max = noContext.length + 150;
    const shrunk = rungPrompt({
      ladder,
      conversation: 2,
      task: task(),
      limits: { ...limits, maxPromptChars: max },
    }).text;
    expect(full.length).toBeGreaterThan(max);
    expect(shrunk.length).toBeLessThanOrEqual(max);
    expect(shrunk).toContain(GENERATED);
    expect(shrunk).toContain(ERROR.message);
    expect(shrunk).toMatch(/Up to [0-3] lines on each side/);

    const tiny = rungPrompt({
      ladder,
      conversation: 3,
      task: task({ diagnostics: many }),
      limits: { ...limits, maxPromptChars: 3000 },
    }).text;
    expect(tiny).toContain(GENERATED);
    expect(tiny).toContain('(left out: the prompt size limit)');
    expect(tiny.length).toBeLessThanOrEqual(3000);
  });

  it('sends the patches whole even when they alone exceed --max-prompt-chars', () => {
    const { text } = rungPrompt({ ladder, conversation: 1, task: task(), limits: { ...limits, maxPromptChars: 100 } });
    expect(text).toContain(GENERATED);
  });

  it('cuts a long rejection in a follow-up too, at a line end', () => {
    const reason = [
      'The project does not build with the corrected patch set. New compiler errors:',
      ...Array.from(
        { length: 100 },
        (_, i) => `src/main.c:${i + 1}:5: error: 'c' undeclared (first use in this function)`,
      ),
    ].join('\n');
    const { text, template } = followUpPrompt({
      ladder,
      task: task(),
      check: 'builds',
      reason,
      limits: { ...limits, maxErrorChars: 1000 },
    });
    expect(template).toBe('follow-up.md');
    expect(text).toContain('rejected at the "builds" check');
    const kept = text.split('\n').filter((line) => line.startsWith('src/main.c:'));
    expect(kept.length).toBeGreaterThan(5);
    for (const line of kept)
      expect(line).toMatch(/^src\/main\.c:\d+:5: error: 'c' undeclared \(first use in this function\)$/);
    expect(text).toMatch(/\n\[… \d+ more characters cut\]\n/);
  });

  it('cutText leaves short text alone, cuts at a line end, and says so whenever it cuts, even with no room left', () => {
    expect(cutText('abc', 3)).toBe('abc');
    expect(cutText('abcdef', 3)).toBe('[… 6 characters cut]');
    expect(cutText('abcdef', 0)).toBe('[… 6 characters cut]');
    const text = `${'a'.repeat(10)}\n${'b'.repeat(30)}\n${'c'.repeat(30)}`;
    expect(cutText(text, 70)).toBe(`${'a'.repeat(10)}\n${'b'.repeat(30)}\n[… 30 more characters cut]`);
    // A first line longer than the room is not cut in half: only the note remains.
    expect(cutText(`${'x'.repeat(100)}\nshort`, 60)).toBe('[… 106 characters cut]');
  });

  it('never leaves the diagnostics block empty without the cut note when --max-prompt-chars squeezes it', () => {
    const { text } = rungPrompt({
      ladder,
      conversation: 1,
      task: task({ diagnostics: many }),
      limits: { ...limits, maxPromptChars: 100 },
    });
    const diagnostics = text.split('## Compiler diagnostics\n\n```\n')[1]!.split('\n```')[0]!;
    expect(diagnostics).toMatch(/^\[… \d+ characters cut\]$/);
  });
});

describe("DiscoPoP's template set", () => {
  let discopop: PromptLadder;
  beforeAll(async () => {
    discopop = await loadPromptLadder(path.resolve('fixtures/discopop-templates'));
  });
  /** What gcc printed for the patched main.c, as compile.sh passed it on. */
  const GCC_OUTPUT = [
    "src/main.c: In function 'main':",
    "src/main.c:11:49: error: 'tmp_var37' undeclared (first use in this function)",
    '   11 |     #pragma omp parallel for private(i) shared(a,b,tmp_var37) reduction(+:sum)',
    '      |                                                 ^~~~~~~~~',
    'src/main.c:11:49: note: each undeclared identifier is reported only once for each function it appears in',
    'make: *** [Makefile:4: main] Error 1',
    '',
  ].join('\n');
  const patched = () => {
    const lines = MAIN_C.split('\n');
    lines.splice(10, 0, '    #pragma omp parallel for private(i) shared(a,b,tmp_var37) reduction(+:sum) ');
    return { ...task({ output: GCC_OUTPUT }), patched: new Map([['1', lines.join('\n')]]) };
  };

  it("fills {diagnostics} with the compiler's output as DiscoPoP sends it, cut at a line end, not with our parsed lines", () => {
    const { text } = rungPrompt({ ladder: discopop, conversation: 1, task: patched(), limits });
    expect(text).toContain(`\`\`\`\n${GCC_OUTPUT.trim()}\n\`\`\``);
    const cut = rungPrompt({
      ladder: discopop,
      conversation: 1,
      task: patched(),
      limits: { ...limits, maxErrorChars: 200 },
    }).text;
    expect(cut).toContain(
      "```\nsrc/main.c: In function 'main':\nsrc/main.c:11:49: error: 'tmp_var37' undeclared (first use in this function)\n[… ",
    );
    const none = rungPrompt({
      ladder: discopop,
      conversation: 1,
      task: { ...patched(), build: { ...patched().build, output: '\n' } },
      limits,
    }).text;
    expect(none).toContain('```\n(none)\n```');
    // The built-in ladder still gets the parsed diagnostics.
    expect(rungPrompt({ ladder, conversation: 1, task: patched(), limits }).text).not.toContain(
      'make: *** [Makefile:4: main] Error 1',
    );
  });

  it('fills every placeholder as DiscoPoP does: identity, the patch blocks, the sources before and after, the findings, the contract', () => {
    const { text, template } = rungPrompt({
      ladder: discopop,
      conversation: 3,
      task: patched(),
      limits: { ...limits, contextLines: 2 },
    });
    expect(template).toBe('guided.md');
    expect(text).not.toMatch(
      /\{(identity|patch_blocks|original_source|patched_source|pattern_metadata|diagnostics|output_contract)\}/,
    );
    expect(text).toContain(
      `## Suggestion under repair\n\n* Suggestion 1, a reduction suggestion of DiscoPoP\n* Its files, each with the id DiscoPoP gave it:\n    * file id 1: ${ROOT}/src/main.c (the build fails in this file)`,
    );
    expect(text).toContain(
      `## Generated patch that does not build\n\n### main.c, file id 1\n\n\`\`\`\n${GENERATED.trimEnd()}\n\`\`\``,
    );
    // The hunk covers lines 8-13 of the original; two lines around it.
    expect(text).toContain(
      '### main.c, file id 1, without the patch\n\n```\n 6      double sum = 0.0;\n 7      for (i = 0; i < N; i++) {\n 8          a[i] = i * 0.5;\n 9          b[i] = i * 2.0;\n10      }\n11      for (i = 0; i < N; i++) {\n12          sum += a[i] * b[i];\n13      }\n14      printf("%f\\n", sum);\n15      return 0;\n```',
    );
    expect(text).toContain('### main.c, file id 1, with the patch applied\n\n```');
    expect(text).toContain('* `shared`: a, b, tmp_var37\n* `reduction`: +:sum\n* Region: from 1:11');
    expect(text).toContain('* `firstprivate`: (none)');
    const measured = {
      ...patched(),
      suggestion: {
        ...patched().suggestion,
        pattern: { ...PATTERN, type: 'do_all', scheduling: 'static', collapseLevel: 1, averageIterationCount: 4096 },
      },
    };
    expect(rungPrompt({ ladder: discopop, conversation: 3, task: measured, limits }).text).toContain(
      '* `reduction`: +:sum\n* Schedule: static\n* Loops collapsed: 1\n* Iterations on average: 4096\n* Region: from 1:11 to 1:13 (file id:line)',
    );
    expect(text).toContain("```\nsrc/main.c: In function 'main':\nsrc/main.c:11:49: error: 'tmp_var37' undeclared");
    expect(text).toContain('===BEGIN PATCH 1===\n--- a/<path>');
    expect(text).toContain('File ids you may use here: 1.');
    // The contract's points, each in our words: no tools, only blocks, one per changed file, the
    // original file as the base, the directives kept, clauses over rewrites, the region, exact context.
    for (const point of [
      'Every tool is off limits',
      'a project on disk that is not the one this patch was generated for',
      'The reply is the corrected patch and only that: no remarks around the blocks and no code\nfences within them.',
      'leave out the files whose patch is\nfine',
      '**Its diff is taken against the file as it was before any patch.**',
      'A diff that deletes the directive and adds a new one\n  finds nothing to delete and fails.',
      '**The `#pragma omp` directives stay.**',
      'Fix the clauses of the directive',
      'Touch only the lines of the region the generated patch changes.',
      'they must be the code exactly as it is.',
    ]) {
      expect(text).toContain(point);
    }
  });

  it('shows the original source on the first rung, and the retry turn gets the failure and the contract', () => {
    const first = rungPrompt({ ladder: discopop, conversation: 1, task: patched(), limits });
    expect(first.template).toBe('minimal.md');
    expect(first.text).toContain(
      'The file before the patch; your diff applies to exactly this text.\n\n### main.c, file id 1, without the patch',
    );
    expect(first.text).not.toContain('with the patch applied');
    const retry = followUpPrompt({
      ladder: discopop,
      task: patched(),
      check: 'dry-run-apply',
      reason: 'src/main.c: hunk 1 does not apply',
      limits,
    });
    expect(retry.template).toBe('retry.md');
    expect(retry.text).toMatch(
      /^Your last answer was rejected:\n\nsrc\/main\.c: hunk 1 does not apply\n\nGive a corrected answer\./,
    );
    expect(retry.text).toContain('===END PATCH 1===');
  });

  it('shows a long hunk whole with the same source lines as the built-in ladder', () => {
    // A 40-line loop body the generated patch's hunk spans from its pragma to its closing brace.
    const body = Array.from({ length: 40 }, (_, k) => `        c[i] += ${k}.0 * a[i];`);
    const source = [
      '#include <stdio.h>',
      '#define N 1000',
      'double a[N], c[N];',
      'int main(void) {',
      '    int i;',
      '    for (i = 0; i < N; i++) {',
      ...body,
      '    }',
      '    printf("%f\\n", c[0]);',
      '    return 0;',
      '}',
      '',
    ].join('\n');
    const lines = source.split('\n');
    const hunk = [
      ' int main(void) {',
      '     int i;',
      '+    #pragma omp parallel for',
      ...lines.slice(5, 47).map((line) => ` ${line}`),
      '     printf("%f\\n", c[0]);',
    ];
    const patch = `--- ${ROOT}/src/main.c\n+++ ${ROOT}/src/main.c.discopop_patch_generator.temp\n@@ -4,45 +4,46 @@\n${hunk.join('\n')}\n`;
    const patchedLines = [...lines];
    patchedLines.splice(5, 0, '    #pragma omp parallel for');
    const base = task();
    const file = { ...base.suggestion.files[0]!, text: patch };
    const long: RepairTask = {
      ...base,
      suggestion: { ...base.suggestion, files: [file] },
      sources: new Map([['1', source]]),
      generated: new Map([['1', patch]]),
      patched: new Map([['1', patchedLines.join('\n')]]),
    };
    const shortLimits = { ...limits, contextLines: 2 };
    const numbered = (text: string, from: string, to: string) =>
      text
        .split(from)[1]!
        .split(to)[0]!
        .split('\n')
        .filter((line) => /^\s*\d+  /.test(line));
    const builtin = numbered(
      rungPrompt({ ladder, conversation: 2, task: long, limits: shortLimits }).text,
      '### src/main.c, lines 2-50\n\n```\n',
      '\n```',
    );
    const theirs = numbered(
      rungPrompt({ ladder: discopop, conversation: 2, task: long, limits: shortLimits }).text,
      '### main.c, file id 1, without the patch\n\n```\n',
      '\n```',
    );
    expect(builtin).toHaveLength(49);
    expect(theirs).toEqual(builtin);
    expect(theirs.at(-1)).toBe('50  }');
  });

  it('drops the sources before the findings and never the patches under --max-prompt-chars', () => {
    const full = rungPrompt({ ladder: discopop, conversation: 3, task: patched(), limits }).text;
    const max = full.length - 200;
    const { text } = rungPrompt({
      ladder: discopop,
      conversation: 3,
      task: patched(),
      limits: { ...limits, maxPromptChars: max },
    });
    expect(text.length).toBeLessThanOrEqual(max);
    expect(text).toContain(GENERATED.trimEnd());
    expect(text).toContain('* `shared`: a, b, tmp_var37');
  });
});
