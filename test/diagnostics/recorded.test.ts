// The parser on recorded real output of gcc 12 and clang 14 (scripts/record-diagnostics.mjs):
// every source under fixtures/diagnostics/<class>/ has both recordings, and each reads as its
// class, with the notes the compiler printed attached to the diagnostic they explain.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstError, parseDiagnostics } from '../../src/build/diagnostics.js';
import { projectWith } from './compilers.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/diagnostics');
const sources = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((dir) => readdirSync(path.join(FIXTURES, dir.name)).filter((file) => /\.(c|cpp)$/.test(file)).map((file) => `${dir.name}/${file}`));
const project = projectWith(FIXTURES, sources);

/** What clang 14 accepts: the misspelt `depends` only warns, `this->m` and class types with operator+ reduce. */
const CLANG_ACCEPTS: Record<string, 'warning' | 'nothing'> = {
  'unknown-clause/depends.c': 'warning',
  'unknown-clause/depends.cpp': 'warning',
  'undeclared-in-clause/member-reduction.cpp': 'nothing',
  'invalid-reduction/complex.cpp': 'nothing',
};

function read(source: string, family: 'gcc' | 'clang') {
  return parseDiagnostics(readFileSync(path.join(FIXTURES, `${source}.${family}.txt`), 'utf8'), project, FIXTURES);
}

describe.each(['gcc', 'clang'] as const)('recorded %s output', (family) => {
  it.each(sources)('%s', (source) => {
    expect(existsSync(path.join(FIXTURES, `${source}.${family}.txt`)), 'run npm run diagnostics:record').toBe(true);
    const diagnostics = read(source, family);
    const expected = source.split('/')[0];
    const accepted = family === 'clang' ? CLANG_ACCEPTS[source] : undefined;
    if (accepted !== undefined) {
      expect(firstError(diagnostics)).toBeUndefined();
      if (accepted === 'warning') expect(diagnostics[0]?.errorClass).toBe(expected);
      return;
    }
    const error = firstError(diagnostics);
    expect(error?.errorClass, JSON.stringify(diagnostics, null, 1)).toBe(expected);
    if (expected !== 'link') expect(error).toMatchObject({ file: source, fileId: expect.any(String), line: expect.any(Number), column: expect.any(Number) });
    expect(diagnostics.filter((d) => d.severity === 'note')).toEqual([]);
  });
});

describe('notes belong to the diagnostic they follow', () => {
  it("clang's duplicate clause: the error points at the second clause, its note at the first", () => {
    const [error, ...rest] = read('duplicate-data-sharing/shared-and-reduction.c', 'clang');
    expect(rest).toEqual([]);
    expect(error).toMatchObject({ message: 'shared variable cannot be reduction', line: 6, column: 65 });
    expect(error?.notes).toEqual([{ file: 'duplicate-data-sharing/shared-and-reduction.c', fileId: expect.any(String), line: 6, column: 48, message: 'defined as shared' }]);
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
    expect(error).toMatchObject({ file: 'invalid-privatization/non-copyable.cpp', message: "call to deleted constructor of 'std::mutex'" });
    expect(error.notes[0]?.file).toMatch(/std_mutex\.h$/);
    expect(error.notes[0]?.fileId).toBeUndefined();
  });
});
