// The six checks against bad and good answers, on a real project: GNU patch and gcc via the
// BuildPool, diff -Naru for the canonical form. Every rejection must name the check and say
// precisely what was wrong, and patch_generator/ must be byte-for-byte untouched.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Verification } from '../../src/formats/attempt.js';
import { verify, type VerifyDeps } from '../../src/repair/verify.js';
import { answerDiff, createTestProject, GOOD_DIRECTIVE, type TestProject } from './project.js';

let project: TestProject;
let deps: VerifyDeps;
let generatorBefore: Record<string, string>;

beforeAll(async () => {
  project = await createTestProject();
  deps = { dp: project.dp, options: { strict: false }, pool: project.pool, scratchDir: project.scratch };
  generatorBefore = await project.generatorSnapshot();
});
afterEach(async () => {
  expect(await project.generatorSnapshot()).toEqual(generatorBefore);
});
afterAll(async () => {
  await project?.dispose();
});

function rejection(verdict: Verification): { check: string; reason: string } {
  if (verdict.accepted) throw new Error('expected the candidate to be rejected');
  return { check: verdict.rejectedBy, reason: verdict.reason };
}

function directiveOnTop(root: string, replacement: string[]): string {
  return [
    `--- ${root}/src/main.c`,
    `+++ ${root}/src/main.c`,
    '@@ -9,5 +9,' + (4 + replacement.length) + ' @@',
    '         b[i] = i * 2.0;',
    '     }',
    '-    #pragma omp parallel for private(i) shared(a,b,tmp_var37) reduction(+:sum) ',
    ...replacement.map((line) => `+${line}`),
    '     for (i = 0; i < N; i++) {',
    '         sum += a[i] * b[i];',
    '',
  ].join('\n');
}

describe('a correct answer', () => {
  it('passes all six checks in order and yields the canonical patch in the generator header form', async () => {
    const verdict = await verify(answerDiff(project.root, GOOD_DIRECTIVE), project.task, deps);
    expect(verdict.checks.map((c) => [c.check, c.passed])).toEqual([
      ['extraction', true],
      ['dry-run-apply', true],
      ['apply', true],
      ['canonicalize', true],
      ['directives-kept', true],
      ['builds', true],
    ]);
    if (!verdict.accepted) throw new Error(verdict.reason);
    expect(verdict.basis).toBe('unpatched');
    expect(verdict.changedFiles).toEqual(['1']);
    const canonical = verdict.canonical.get('1')!;
    const lines = canonical.split('\n');
    expect(lines[0]).toMatch(
      new RegExp(`^--- ${project.root}/src/main\\.c\\t\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{9} [+-]\\d{4}$`),
    );
    expect(lines[1]).toMatch(
      new RegExp(`^\\+\\+\\+ ${project.root}/src/main\\.c\\.discopop_patch_generator\\.temp\\t`),
    );
    expect(lines.slice(2)).toEqual([
      '@@ -8,6 +8,7 @@',
      '         a[i] = i * 0.5;',
      '         b[i] = i * 2.0;',
      '     }',
      `+${GOOD_DIRECTIVE}`,
      '     for (i = 0; i < N; i++) {',
      '         sum += a[i] * b[i];',
      '     }',
      '',
    ]);
    expect(verdict.clauseChanges).toContainEqual(
      expect.objectContaining({ file: '1', kind: 'variable-removed', clause: 'shared', variable: 'tmp_var37' }),
    );
    expect(verdict.nonDirectiveLinesChanged).toBe(false);
    expect(verdict.build.ok).toBe(true);
  });

  it('accepts a diff written on top of the generated patch', async () => {
    const verdict = await verify(directiveOnTop(project.root, [GOOD_DIRECTIVE]), project.task, deps);
    if (!verdict.accepted) throw new Error(verdict.reason);
    expect(verdict.basis).toBe('on-top');
    expect(verdict.canonical.get('1')).toContain(`+${GOOD_DIRECTIVE}\n`);
    expect(verdict.canonical.get('1')).not.toContain('tmp_var37');
  });

  it('accepts git-style paths and hunk line numbers that are off, as models write them', async () => {
    const answer = answerDiff(project.root, GOOD_DIRECTIVE, { at: 30 })
      .replace(`--- ${project.root}/src/main.c`, '--- a/src/main.c')
      .replace(`+++ ${project.root}/src/main.c`, '+++ b/src/main.c');
    const verdict = await verify(answer, project.task, deps);
    if (!verdict.accepted) throw new Error(verdict.reason);
    expect(verdict.canonical.get('1')).toContain('@@ -8,6 +8,7 @@');
    expect(verdict.applyReport?.files[0]?.hunks[0]).toMatchObject({ applied: true, line: 8 });
  });
});

describe('bad answers are rejected with a precise reason', () => {
  const root = () => project.root;
  const cases: [string, () => string, string, RegExp][] = [
    ['an empty answer', () => '   \n', 'extraction', /^The answer was empty: it held no patch\.$/],
    [
      'prose without a diff',
      () => 'Remove tmp_var37 from the shared clause and it will compile.',
      'extraction',
      /holds no unified diff/,
    ],
    [
      'a diff for a file outside the patch set',
      () => answerDiff(root(), GOOD_DIRECTIVE).replaceAll('src/main.c', 'src/other.c'),
      'extraction',
      /block 1 \(.*src\/other\.c\): not a file of this suggestion's patch set \(src\/main\.c\)/,
    ],
    [
      'a path that escapes the project',
      () => answerDiff(root(), GOOD_DIRECTIVE).replaceAll(`${root()}/src/main.c`, '../../etc/main.c'),
      'extraction',
      /path contains `\.\.` and would leave the project/,
    ],
    [
      'an absolute path elsewhere',
      () => answerDiff(root(), GOOD_DIRECTIVE).replaceAll(`${root()}/src/main.c`, '/etc/main.c'),
      'extraction',
      /absolute path outside the project root/,
    ],
    [
      'binary bytes',
      () => answerDiff(root(), GOOD_DIRECTIVE) + '\u0000\u0001\u0002',
      'extraction',
      /binary data \(NUL bytes\)/,
    ],
    [
      '50 MB of text',
      () => 'x'.repeat(50 * 1024 * 1024),
      'extraction',
      /^The answer is 52428800 characters long, more than the 1000000/,
    ],
    [
      'a diff that deletes the directive',
      () => directiveOnTop(root(), []),
      'directives-kept',
      /^src\/main\.c: the directive `#pragma omp parallel for private\(i\) shared\(a,b,tmp_var37\) reduction\(\+:sum\)` above `for \(i = 0; i < N; i\+\+\) \{` \(line 11\) was dropped; it must stay/,
    ],
    [
      'a diff that comments the directive out',
      () => answerDiff(root(), '    // #pragma omp parallel for private(i) shared(a,b) reduction(+:sum) '),
      'directives-kept',
      /\(line 11\) was commented out; it must stay in effect/,
    ],
    [
      'a diff that moves the directive to another loop',
      () => moveToFirstLoop(root()),
      'directives-kept',
      /^src\/main\.c: the directive .* above `for \(i = 0; i < N; i\+\+\) \{` \(line 11\)/,
    ],
    [
      'a diff that weakens the directive to simd',
      () => answerDiff(root(), '    #pragma omp simd '),
      'directives-kept',
      /became `simd`: the construct `parallel for` must stay/,
    ],
    [
      'a diff that applies nowhere',
      () =>
        answerDiff(root(), GOOD_DIRECTIVE)
          .replace('b[i] = i * 2.0;', 'c[i] = i * 7.0;')
          .replace('a[i] = i * 0.5;', 'q[i] = 3;')
          .replace('sum += a[i] * b[i];', 'total -= 1;'),
      'dry-run-apply',
      /src\/main\.c.*does not apply/,
    ],
    [
      'a diff identical to the generated patch',
      () => project.task.generated.get('1')!,
      'apply',
      /exactly as the generated patch set does/,
    ],
  ];

  it.each(cases)('%s', async (_name, answer, check, reason) => {
    const verdict = await verify(answer(), project.task, deps);
    const rejected = rejection(verdict);
    expect(rejected.check).toBe(check);
    expect(rejected.reason).toMatch(reason);
    // Nothing after the rejecting check ran: no build was spent on it.
    expect(verdict.checks.at(-1)).toEqual({ check, passed: false, reason: rejected.reason });
    expect(verdict.checks.slice(0, -1).every((c) => c.passed)).toBe(true);
  });

  it('a diff that applies but does not build: the follow-up names the new compiler error', async () => {
    const verdict = await verify(
      answerDiff(project.root, '    #pragma omp parallel for private(i) shared(a,b,c) reduction(+:sum) '),
      project.task,
      deps,
    );
    const rejected = rejection(verdict);
    expect(rejected.check).toBe('builds');
    expect(rejected.reason).toMatch(
      /^The project does not build with the corrected patch set\. New compiler errors:\n/,
    );
    expect(rejected.reason).toMatch(/src\/main\.c:11:\d+: error: .*[‘']c[’'] undeclared/);
    expect(rejected.reason).not.toContain('tmp_var37');
    // The canonical set it was built with is kept for the transcript.
    expect(verdict.canonical?.get('1')).toContain('shared(a,b,c)');
  });

  it('a diff that would build only because the directive is gone never reaches the build', async () => {
    const verdict = await verify(
      directiveOnTop(project.root, ['    /* parallel loop removed: it did not compile */']),
      project.task,
      deps,
    );
    expect(rejection(verdict).check).toBe('directives-kept');
    expect(verdict.checks.map((c) => c.check)).not.toContain('builds');
  });
});

describe('--strict', () => {
  const strict = () => ({ ...deps, options: { strict: true } });

  it('refuses a candidate that drops the reduction clause, before building it', async () => {
    const verdict = await verify(
      answerDiff(project.root, '    #pragma omp parallel for private(i) shared(a,b) '),
      project.task,
      strict(),
    );
    const rejected = rejection(verdict);
    expect(rejected.check).toBe('strict');
    // The clause is named with its variables, as the generated directive had it.
    expect(rejected.reason).toMatch(
      /privatizing and reduction clauses may not be removed, and the answer removes reduction\(\+:sum\) from "#pragma omp parallel for/,
    );
    expect(verdict.checks.map((c) => c.check)).not.toContain('builds');
  });

  it('refuses a candidate that changes a line other than a directive', async () => {
    const answer = directiveOnTop(project.root, [GOOD_DIRECTIVE]).replace(
      '         sum += a[i] * b[i];',
      '-        sum += a[i] * b[i];\n+        sum = sum + a[i] * b[i];',
    );
    const rejected = rejection(await verify(answer, project.task, strict()));
    expect(rejected.check).toBe('strict');
    expect(rejected.reason).toMatch(/only directive lines may change/);
  });

  it('accepts a pure clause fix and records that no other line changed', async () => {
    const verdict = await verify(answerDiff(project.root, GOOD_DIRECTIVE), project.task, strict());
    expect(verdict.accepted).toBe(true);
    expect(verdict.checks.map((c) => c.check)).toEqual([
      'extraction',
      'dry-run-apply',
      'apply',
      'canonicalize',
      'directives-kept',
      'strict',
      'builds',
    ]);
  });
});

function moveToFirstLoop(root: string): string {
  return [
    `--- ${root}/src/main.c`,
    `+++ ${root}/src/main.c`,
    '@@ -4,6 +4,7 @@',
    ' int main(void) {',
    '     int i;',
    '     double sum = 0.0;',
    `+    #pragma omp parallel for private(i) shared(a,b) `,
    '     for (i = 0; i < N; i++) {',
    '         a[i] = i * 0.5;',
    '         b[i] = i * 2.0;',
    '',
  ].join('\n');
}
