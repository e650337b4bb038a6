// The small pieces the rules are built from: clause edits in the generator's form, and reading
// the class out of gcc's C++ object errors (messages copied from g++ 12 runs on the fixtures).
import { describe, expect, it } from 'vitest';
import { parseObjectError } from '../../src/builtin/rules/cxx-objects.js';
import { addEntry, removeEntries } from '../../src/builtin/rules/clauses.js';
import { parseDirective, renderDirective } from '../../src/patch/openmp.js';

const directive = (text: string) => parseDirective(text)!;

describe('clause edits', () => {
  it('drops a clause whose last entry goes, keeps the construct and the generator form', () => {
    const edited = removeEntries(
      directive('    #pragma omp parallel for private(tmp) shared(a,b) reduction(+:sum) '),
      (entry) => entry === 'tmp' || entry === 'b',
    );
    expect(renderDirective(edited)).toBe('    #pragma omp parallel for shared(a) reduction(+:sum) ');
    const emptied = removeEntries(directive('#pragma omp parallel for private(t) '), () => true);
    expect(renderDirective(emptied)).toBe('#pragma omp parallel for ');
  });

  it('adds to an existing clause, or a new clause in the generator order', () => {
    const base = directive('#pragma omp parallel for collapse(2) private(i) reduction(+:s) ');
    expect(renderDirective(addEntry(base, 'firstprivate', 'c'))).toBe(
      '#pragma omp parallel for collapse(2) firstprivate(c) private(i) reduction(+:s) ',
    );
    expect(renderDirective(addEntry(base, 'shared', 'v'))).toBe(
      '#pragma omp parallel for collapse(2) private(i) shared(v) reduction(+:s) ',
    );
    expect(renderDirective(addEntry(base, 'private', 'j'))).toBe(
      '#pragma omp parallel for collapse(2) private(i,j) reduction(+:s) ',
    );
  });
});

describe('parseObjectError', () => {
  it.each([
    [
      "use of deleted function 'std::unique_ptr<_Tp [], _Dp>::unique_ptr(const std::unique_ptr<_Tp [], _Dp>&) [with _Tp = double; _Dp = std::default_delete<double []>]'",
      'unique_ptr',
      'copy',
    ],
    ["use of deleted function 'std::mutex::mutex(const std::mutex&)'", 'mutex', 'copy'],
    [
      "use of deleted function 'std::basic_ofstream<_CharT, _Traits>::basic_ofstream(const std::basic_ofstream<_CharT, _Traits>&) [with _CharT = char; _Traits = std::char_traits<char>]'",
      'basic_ofstream',
      'copy',
    ],
    ["use of deleted function 'std::mutex& std::mutex::operator=(const std::mutex&)'", 'mutex', 'copy'],
    ["no matching function for call to 'NoDef::NoDef()'", 'NoDef', 'default-constructor'],
    ["no matching function for call to 'grid::Stencil<double>::Stencil()'", 'Stencil', 'default-constructor'],
  ])('%s', (message, className, missing) => {
    expect(parseObjectError(message)).toEqual({ className, missing });
  });

  it('ignores other errors', () => {
    expect(parseObjectError("'tmp' has not been declared")).toBeNull();
    expect(parseObjectError("no matching function for call to 'f(int)'")).toBeNull();
  });
});
