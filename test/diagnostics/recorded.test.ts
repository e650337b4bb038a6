// The parser on recorded real output of gcc 12, clang 14 and clang 19 (scripts/record-diagnostics.mjs):
// every source under fixtures/diagnostics/<class>/ has the three recordings, and each reads as its
// class (a build the compiler lets pass with a warning that it dropped part of a directive, by
// that warning), with the notes the compiler printed attached to the diagnostic they explain.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  classifyByPosition,
  firstError,
  ignoresDirective,
  judgeDiagnostics,
  parseDiagnostics,
} from '../../src/build/diagnostics.js';
import { BUILDS, directiveLinesOf, projectWith } from './compilers.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/diagnostics');
const sources = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((dir) =>
    readdirSync(path.join(FIXTURES, dir.name))
      .filter((file) => /\.(c|cpp)$/.test(file))
      .map((file) => `${dir.name}/${file}`),
  );
const project = projectWith(FIXTURES, sources);
const directiveLines = directiveLinesOf(project);

type Recorded = 'gcc' | 'clang' | 'clang-19';

function read(source: string, compiler: Recorded) {
  return classifyByPosition(
    parseDiagnostics(readFileSync(path.join(FIXTURES, `${source}.${compiler}.txt`), 'utf8'), project, FIXTURES),
    directiveLines,
  );
}

describe.each(['gcc', 'clang', 'clang-19'] as const)('recorded %s output', (compiler) => {
  it.each(sources)('%s', (source) => {
    expect(existsSync(path.join(FIXTURES, `${source}.${compiler}.txt`)), 'run npm run diagnostics:record').toBe(true);
    const diagnostics = read(source, compiler);
    const expected = source.split('/')[0];
    const builds = BUILDS[compiler === 'gcc' ? 'gcc' : 'clang'][source];
    if (builds !== undefined) {
      expect(firstError(diagnostics)).toBeUndefined();
      if (builds === 'silent') expect(diagnostics).toEqual([]);
      else {
        expect(diagnostics.length).toBeGreaterThan(0);
        for (const d of diagnostics) {
          expect(d).toMatchObject({
            severity: 'warning',
            errorClass: expected,
            file: source,
            line: expect.any(Number),
          });
          expect(ignoresDirective(d.message), d.message).toBe(true);
        }
      }
      return;
    }
    const error = firstError(diagnostics);
    expect(error?.errorClass, JSON.stringify(diagnostics, null, 1)).toBe(expected);
    if (expected !== 'link')
      expect(error).toMatchObject({
        file: source,
        fileId: expect.any(String),
        line: expect.any(Number),
        column: expect.any(Number),
      });
    expect(diagnostics.filter((d) => d.severity === 'note')).toEqual([]);
  });
});

describe('notes belong to the diagnostic they follow', () => {
  it("clang's duplicate clause: the error points at the second clause, its note at the first", () => {
    const [error, ...rest] = read('duplicate-data-sharing/shared-and-reduction.c', 'clang');
    expect(rest).toEqual([]);
    expect(error).toMatchObject({ message: 'shared variable cannot be reduction', line: 6, column: 65 });
    expect(error?.notes).toEqual([
      {
        file: 'duplicate-data-sharing/shared-and-reduction.c',
        fileId: expect.any(String),
        line: 6,
        column: 48,
        message: 'defined as shared',
      },
    ]);
  });

  it("gcc's missing default constructor: every candidate note under the one error", () => {
    const diagnostics = read('invalid-privatization/no-default-ctor.cpp', 'gcc');
    const error = firstError(diagnostics)!;
    expect(error.message).toBe("no matching function for call to 'Scale::Scale()'");
    expect(error.notes.length).toBeGreaterThanOrEqual(3);
    expect(error.notes[0]).toMatchObject({ line: 3, message: "candidate: 'Scale::Scale(double)'" });
  });

  it('a note in a system header stays with the error in the project file', () => {
    const error = firstError(read('invalid-privatization/non-copyable.cpp', 'clang'))!;
    expect(error).toMatchObject({
      file: 'invalid-privatization/non-copyable.cpp',
      message: "call to deleted constructor of 'std::mutex'",
    });
    expect(error.notes[0]?.file).toMatch(/std_mutex\.h$/);
    expect(error.notes[0]?.fileId).toBeUndefined();
  });
});

describe('a warning that a directive was dropped fails the build only on a line the patch set added', () => {
  const fileId = (source: string) => [...project.files.values()].find((f) => f.relPath === source)!.id;

  it.each([
    ['clang', 'unknown-clause/depends.c', [6, 8]],
    ['clang', 'unknown-clause/continuation.c', [6, 7]],
    ['gcc', 'unknown-clause/misspelt-directive.c', [5]],
    ['gcc', 'other/device-type.c', [2]],
    ['clang', 'other/declare-variant.c', [4]],
  ] as const)('%s %s', (family, source, addedLines) => {
    const diagnostics = read(source, family);
    const judged = judgeDiagnostics(diagnostics, new Map([[fileId(source), new Set(addedLines)]]));
    expect(judged.every((d) => d.failsBuild === true && d.severity === 'warning')).toBe(true);
    expect(firstError(judged)).toBe(judged[0]);
    // The same source as the user's own code: the lines were not added, nothing fails.
    const own = judgeDiagnostics(diagnostics, new Map([[fileId(source), new Set([1])]]));
    expect(firstError(own)).toBeUndefined();
    expect(own).toEqual(diagnostics);
  });

  it('another warning on an added line, or the same warning in another file, does not fail it', () => {
    const source = 'unknown-clause/depends.c';
    const printed = `${source}:6:13: warning: unused variable 't' [-Wunused-variable]\n${readFileSync(path.join(FIXTURES, `${source}.clang.txt`), 'utf8')}`;
    const diagnostics = parseDiagnostics(printed, project, FIXTURES);
    const judged = judgeDiagnostics(diagnostics, new Map([[fileId(source), new Set([6])]]));
    expect(judged.map((d) => d.failsBuild ?? false)).toEqual([false, true, false]);
    expect(firstError(judged)?.message).toMatch(/^extra tokens at the end of '#pragma omp task' are ignored/);
    expect(
      firstError(judgeDiagnostics(diagnostics, new Map([[fileId('unknown-clause/depends.cpp'), new Set([6, 8])]]))),
    ).toBeUndefined();
  });
});
