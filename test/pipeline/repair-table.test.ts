// For every error class of design.md, a repair written the way a careful engineer writes it (a
// clause fixed, a directive moved onto its loop, a loop header rewritten behind a guard, a struct
// member reduced through a local, `declare reduction` added above the function in an answer
// written on top of the generated patch, a break turned into a min reduction) is accepted and
// written back canonically through the whole pipeline: the built CLI, the scripted agent, real
// GNU patch, diff -Naru and gcc/g++. Before each right answer the agent gives one or two wrong ones
// (the directive dropped, commented out with // or a block comment, switched off by #if 0 with the
// loop copied into #else or by an `if(0)` or `num_threads(1)` clause on the right repair, moved to
// another loop, or left above a declaration), which check 5 rejects without a build. One run over
// fixtures/repairs holds every case.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../../src/process.js';
import type { RunEvent } from '../../src/formats/events.js';
import type { ErrorClass } from '../../src/formats/types.js';
import { useFixture } from '../helpers/fixture.js';
import { writeScriptedDescriptor } from '../helpers/scripted-agent.js';
import { readResults, runCli } from '../helpers/cli.js';

type Wrong =
  | 'dropped'
  | 'commented out'
  | 'inside a block comment'
  | 'switched off by #if 0'
  | 'switched off by a clause'
  | 'moved to another loop'
  | 'left above the declaration';

interface Case {
  id: string;
  file: string;
  errorClass: ErrorClass;
  /** What the repair is, in words. */
  repair: string;
  /** The file as the engineer leaves it, from the unpatched source (or the generated result, for `onTop`). */
  fix: (text: string) => string;
  /** The answer is a diff against the file with the generated patch applied. */
  onTop?: boolean;
  /** Each written against the unpatched source or on top of the generated patch, as `base` says. */
  wrong: { kind: Wrong; base: 'original' | 'generated'; make: (o: Sources) => string }[];
}

interface Sources {
  original: string;
  generated: string;
  /** The generated directive line, as the patch adds it. */
  directive: string;
}

/** Replaces exactly one occurrence, so a case cannot silently edit the wrong place. */
function once(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  if (at < 0 || text.indexOf(from, at + 1) >= 0) throw new Error(`expected exactly one '${from}'`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}

/** The generated directive deleted, in an answer written on top of the generated patch. */
const dropped = { kind: 'dropped' as const, base: 'generated' as const, make: (s: Sources) => s.original };
const commentedOut = {
  kind: 'commented out' as const,
  base: 'generated' as const,
  make: (s: Sources) => s.generated.replace(s.directive, s.directive.replace('#pragma', '// #pragma')),
};
/** A comment opened above the directive and closed on its loop's line: it still builds. */
const inBlockComment = {
  kind: 'inside a block comment' as const,
  base: 'generated' as const,
  make: (s: Sources) => once(s.generated, `${s.directive}\n`, `    /*\n${s.directive}\n    */`),
};

const CASES: Case[] = [
  {
    id: '1',
    file: 'src/undeclared.c',
    errorClass: 'undeclared-in-clause',
    repair: 'the undeclared name dropped from the clause',
    fix: (t) =>
      once(t, '    for (i = 0;', '    #pragma omp parallel for private(i) shared(x) firstprivate(f)\n    for (i = 0;'),
    wrong: [dropped],
  },
  {
    id: '2',
    file: 'src/duplicate.c',
    errorClass: 'duplicate-data-sharing',
    repair: 'the reduction variable no longer also shared',
    fix: (t) => once(t, '    for (int i', '    #pragma omp parallel for shared(a,b) reduction(+:sum)\n    for (int i'),
    wrong: [
      commentedOut,
      {
        kind: 'switched off by a clause',
        base: 'original',
        make: (s) =>
          once(
            s.original,
            '    for (int i',
            '    #pragma omp parallel for shared(a,b) reduction(+:sum) num_threads(1)\n    for (int i',
          ),
      },
    ],
  },
  {
    id: '3',
    file: 'src/stats.c',
    errorClass: 'invalid-reduction',
    repair: 'the struct member reduced through a local variable',
    fix: (t) =>
      once(
        t,
        '    for (int i = 0; i < n; i++)\n        s->total += v[i];\n',
        '    double total = s->total;\n    #pragma omp parallel for shared(v) reduction(+:total)\n    for (int i = 0; i < n; i++)\n        total += v[i];\n    s->total = total;\n',
      ),
    wrong: [commentedOut],
  },
  {
    id: '4',
    file: 'src/acc.cpp',
    errorClass: 'invalid-reduction',
    repair: '`declare reduction` added above the function, written on top of the generated patch',
    onTop: true,
    fix: (t) =>
      once(
        t,
        'double total(',
        '#pragma omp declare reduction(+ : Acc : omp_out += omp_in.v) initializer(omp_priv = Acc(0.0))\n\ndouble total(',
      ),
    wrong: [dropped],
  },
  {
    id: '5',
    file: 'src/bias.c',
    errorClass: 'invalid-privatization',
    repair: 'the const variable made firstprivate',
    fix: (t) => once(t, '    for (int i', '    #pragma omp parallel for firstprivate(bias) shared(x)\n    for (int i'),
    // The right repair, made to run on one thread: it builds, so only check 5 stands in its way.
    wrong: [
      dropped,
      {
        kind: 'switched off by a clause',
        base: 'original',
        make: (s) =>
          once(
            s.original,
            '    for (int i',
            '    #pragma omp parallel for firstprivate(bias) shared(x) if(0)\n    for (int i',
          ),
      },
    ],
  },
  {
    id: '6',
    file: 'src/grid.cpp',
    errorClass: 'this-in-clause',
    repair: '`this` dropped: members are shared through it',
    fix: (t) => once(t, '    for (int i', '    #pragma omp parallel for\n    for (int i'),
    wrong: [commentedOut],
  },
  {
    id: '7',
    file: 'src/stages.c',
    errorClass: 'unknown-clause',
    repair: '`depends` spelled `depend`',
    fix: (t) => once(t, '        a[i] = i;', '        #pragma omp task shared(a) depend(out:a[i])\n        a[i] = i;'),
    wrong: [dropped],
  },
  {
    id: '8',
    file: 'src/addy.c',
    errorClass: 'clause-not-allowed',
    repair: '`shared` left to the enclosing parallel region',
    fix: (t) => once(t, '        for (i = 0;', '        #pragma omp for private(i)\n        for (i = 0;'),
    wrong: [commentedOut],
  },
  {
    id: '9',
    file: 'src/rows.c',
    errorClass: 'directive-not-before-loop',
    repair: 'the directive moved down from the declaration onto its loop',
    fix: (t) =>
      once(
        t,
        '    const int rows = m->rows;\n',
        '    const int rows = m->rows;\n    #pragma omp parallel for shared(m) firstprivate(f)\n',
      ),
    wrong: [
      {
        kind: 'moved to another loop',
        base: 'original',
        make: (s) => once(s.original, '        m->v[r] *= f;\n', `        m->v[r] *= f;\n${s.directive}\n`),
      },
      {
        kind: 'left above the declaration',
        base: 'generated',
        make: (s) =>
          s.generated.replace(s.directive, '    #pragma omp parallel for shared(m) firstprivate(f) schedule(static)'),
      },
    ],
  },
  {
    id: '10',
    file: 'src/smooth.c',
    errorClass: 'non-canonical-loop',
    repair: 'the loop header rewritten to canonical form behind a guard for the unsigned bound',
    fix: (t) =>
      once(
        t,
        '    for (i = 1; i + 1 < n; ++i)\n',
        '    if (n < 3)\n        return;\n    #pragma omp parallel for shared(in,out)\n    for (i = 1; i < n - 1; ++i)\n',
      ),
    // The directive deleted along with the header rewrite. (The rewrite alone, written against the
    // source, is read on top of the generated patch: it leaves the directive's lines alone.)
    wrong: [{ kind: 'dropped', base: 'generated', make: (s) => once(s.original, 'i + 1 < n', 'i < n - 1') }],
  },
  {
    id: '11',
    file: 'src/find.c',
    errorClass: 'early-exit',
    repair: 'the break replaced by a min reduction over the index',
    fix: (t) =>
      once(
        once(
          once(
            t,
            '    int found = -1;\n',
            '    int found = n;\n    #pragma omp parallel for shared(v) firstprivate(key) reduction(min:found)\n',
          ),
          '        if (v[i] == key) {\n            found = i;\n            break;\n',
          '        if (v[i] == key && i < found) {\n            found = i;\n',
        ),
        '    return found;',
        '    return found < n ? found : -1;',
      ),
    wrong: [dropped],
  },
  {
    id: '12',
    file: 'src/zero.c',
    errorClass: 'collapse-not-nested',
    repair: 'collapse removed: the loops are not perfectly nested',
    fix: (t) => once(t, '    for (int r', '    #pragma omp parallel for shared(m)\n    for (int r'),
    wrong: [commentedOut, inBlockComment],
  },
  {
    id: '13',
    file: 'src/norm.c',
    errorClass: 'patch-does-not-apply',
    repair: 'the directive placed on the loop of the current source',
    fix: (t) => once(t, '    for (int i', '    #pragma omp parallel for shared(x) reduction(+:sum)\n    for (int i'),
    wrong: [
      {
        kind: 'dropped',
        base: 'original',
        make: (s) => once(s.original, '    for (int i', '    /* kept sequential */\n    for (int i'),
      },
    ],
  },
  {
    id: '14',
    file: 'src/scratch.cpp',
    errorClass: 'link',
    repair: 'the scratch object made firstprivate: copied, not default-constructed',
    fix: (t) => once(t, '    for (int i', '    #pragma omp parallel for shared(x) firstprivate(s)\n    for (int i'),
    wrong: [dropped],
  },
  {
    id: '15',
    file: 'src/spread.c',
    errorClass: 'other',
    repair: 'the non-integral chunk size dropped from schedule',
    fix: (t) => once(t, '    for (int i', '    #pragma omp parallel for shared(x) schedule(static)\n    for (int i'),
    wrong: [
      commentedOut,
      {
        // Directive and loop compiled out, a sequential copy of the loop compiled instead.
        kind: 'switched off by #if 0',
        base: 'generated',
        make: (s) => {
          const loop = '    for (int i = 0; i < n; i++)\n        x[i] = i * step;\n';
          return once(s.generated, `${s.directive}\n${loop}`, `#if 0\n${s.directive}\n${loop}#else\n${loop}#endif\n`);
        },
      },
    ],
  },
];

const WRONG_REASON: Record<Wrong, RegExp> = {
  dropped: /was dropped; it must stay|is not added any more; it must stay/,
  'commented out': /was commented out; it must stay in effect/,
  // These two diffs also apply to the unpatched source (their directive line is context, which the
  // engine can do without); neither reading keeps the directive, and the on-top one, which shows it,
  // is judged, so the reason names what the answer did rather than "dropped".
  'inside a block comment': /was commented out; it must stay in effect/,
  'switched off by #if 0': /is switched off by `#if 0`; it must stay in effect/,
  'switched off by a clause': /switches the parallel region off: `(if\(0\)|num_threads\(1\))`/,
  'moved to another loop': /was moved above `for \(int r = 0; r < rows; r\+\+\)` \(line 11\), another statement/,
  'left above the declaration':
    /for the loop `for \(int r = 0; r < rows; r\+\+\)` \(line 9\) stands above `const int rows = m->rows;`/,
};

/** `diff -Naru` of two texts, labelled with the project file's path as a person's tools write it. */
async function diffAnswer(scratch: string, file: string, before: string, after: string): Promise<string> {
  writeFileSync(path.join(scratch, 'before'), before);
  writeFileSync(path.join(scratch, 'after'), after);
  const diff = await runProcess({
    command: 'diff',
    args: ['-Naru', '--label', file, '--label', file, 'before', 'after'],
    cwd: scratch,
  });
  if (diff.kind !== 'exited' || diff.exitCode !== 1) throw new Error(`diff: ${diff.kind}`);
  return `Here is the corrected patch.\n\n\`\`\`diff\n${diff.stdout}\`\`\`\n`;
}

async function applyWithGnuPatch(scratch: string, source: string, patchText: string): Promise<string> {
  writeFileSync(path.join(scratch, 'target'), source);
  writeFileSync(path.join(scratch, 'patch'), patchText);
  const applied = await runProcess({
    command: 'patch',
    args: ['--batch', '--forward', 'target', 'patch'],
    cwd: scratch,
  });
  expect(applied, applied.kind === 'exited' ? applied.stdout : '').toMatchObject({ kind: 'exited', exitCode: 0 });
  return readFileSync(path.join(scratch, 'target'), 'utf8');
}

describe('a careful repair of every error class, and a wrong one before it', () => {
  it('accepts and writes back each repair canonically; rejects each wrong answer at check 5', async () => {
    const { root, dotDir } = useFixture('repairs');
    const scratch = mkdtempSync(path.join(tmpdir(), 'pr-table-'));
    try {
      const replies: string[] = [];
      const expected = new Map<string, string>();
      for (const c of CASES) {
        const abs = path.join(root, c.file);
        const original = readFileSync(abs, 'utf8');
        const generatedPatch = readFileSync(
          path.join(dotDir, 'patch_generator', c.id, `${fileId(dotDir, c.file)}.patch`),
          'utf8',
        );
        const directive = generatedPatch
          .split('\n')
          .find((line) => /^\+\s*#pragma omp/.test(line))!
          .slice(1);
        const generated =
          c.errorClass === 'patch-does-not-apply'
            ? original
            : await applyWithGnuPatch(scratch, original, generatedPatch);
        const sources = { original, generated, directive };
        for (const wrong of c.wrong)
          replies.push(await diffAnswer(scratch, abs, sources[wrong.base], wrong.make(sources)));
        const fixed = c.fix(c.onTop ? generated : original);
        expected.set(c.id, fixed);
        replies.push(await diffAnswer(scratch, abs, c.onTop ? generated : original, fixed));
      }
      const { descriptorFile } = await writeScriptedDescriptor({ dir: path.join(scratch, 'agent'), replies });
      // The scripted agent answers from one list in order, so the suggestions are asked one at a time.
      const args = [
        '--dot-dp-path',
        dotDir,
        '--backend',
        descriptorFile,
        '--no-builtin',
        '--prompts',
        '1',
        '--retries',
        '3',
        '--agent-jobs',
        '1',
      ];
      const run = await runCli(dotDir, args, { timeoutMs: 600_000 });
      expect(run.exitCode, run.stdout + run.stderr).toBe(0);

      const results = readResults(dotDir);
      const events = readFileSync(path.join(dotDir, 'patch_repair', 'progress.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as RunEvent);
      for (const c of CASES) {
        const record = results.suggestions.find((s) => s.id === c.id)!;
        const label = `suggestion ${c.id} (${c.errorClass}: ${c.repair})`;
        expect(record, label).toMatchObject({
          status: 'repaired',
          error_class: c.errorClass,
          accepted_attempt: c.wrong.length + 1,
          attempts: c.wrong.length + 1,
        });

        const checks = events.filter(
          (e): e is Extract<RunEvent, { type: 'check' }> => e.type === 'check' && e.id === c.id,
        );
        c.wrong.forEach((wrong, index) => {
          const failed = checks.find((e) => e.attempt === index + 1 && !e.passed);
          expect(failed, `${label}, wrong answer ${wrong.kind}`).toMatchObject({
            check: 'directives-kept',
            reason: expect.stringMatching(WRONG_REASON[wrong.kind]),
          });
        });
        expect(
          checks.filter((e) => e.attempt === c.wrong.length + 1).every((e) => e.passed),
          label,
        ).toBe(true);

        // Written canonically: the generated patch's header paths and diff's time stamps, and
        // GNU patch turns the untouched source into exactly the engineer's file.
        const id = fileId(dotDir, c.file);
        const written = readFileSync(path.join(dotDir, 'patch_generator', c.id, `${id}.patch`), 'utf8');
        const backup = readFileSync(path.join(dotDir, 'patch_repair', 'backups', c.id, `${id}.patch`), 'utf8');
        const [minus, plus] = written.split('\n');
        expect(minus!.split('\t')[0], label).toBe(`--- ${path.join(root, c.file)}`);
        expect(plus!.split('\t')[0], label).toBe(backup.split('\n')[1]!.split('\t')[0]);
        expect(minus, label).toMatch(/\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} [+-]\d{4}$/);
        expect(await applyWithGnuPatch(scratch, readFileSync(path.join(root, c.file), 'utf8'), written), label).toBe(
          expected.get(c.id),
        );
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

function fileId(dotDir: string, rel: string): string {
  const line = readFileSync(path.join(dotDir, 'FileMapping.txt'), 'utf8')
    .split('\n')
    .find((l) => l.endsWith(`/${rel}`));
  return line!.split('\t')[0]!;
}
