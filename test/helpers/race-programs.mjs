// Small C programs for --check-races: three loops a repair can make race, each with the
// generated directive that does not build, the racing repair and the right one. Plain JavaScript,
// so the races bench (scripts/bench/races.mjs) writes the same projects as the tests.

/**
 * A loop-invariant temporary: every iteration writes `t` with the same value, so with `t` shared
 * the output is the sequential one at any thread count (--check-run accepts it), but two threads
 * write `t` unsynchronized: a race.
 */
export const SHARED_TEMP = {
  name: 'shared temporary',
  mainC: `#include <stdio.h>
#define N 2000
double a[N];
double scale = 3.0;
int main(void) {
    int i;
    double t;
    for (i = 0; i < N; i++) a[i] = i;
    for (i = 0; i < N; i++) {
        t = scale * 2.0;
        a[i] = a[i] * t;
    }
    double sum = 0.0;
    for (i = 0; i < N; i++) sum += a[i];
    printf("sum %.6f\\n", sum);
    return 0;
}
`,
  loopLine: 9,
  generated: '    #pragma omp parallel for shared(a,tmp_var7) private(t)',
  racy: '    #pragma omp parallel for shared(a,t)',
  right: '    #pragma omp parallel for shared(a) private(t)',
  /** The racing line in the patched file (one line below the source's: the directive is inserted above). */
  raceLine: 11,
  variable: 't',
};

/**
 * A histogram: the generated array reduction, repaired into a shared array. The right repair is
 * the whole-array reduction; a section `hist[:4]` of this file-scope array races under clang
 * (FILE_SCOPE_SECTION).
 */
export const ARRAY_REDUCTION = {
  name: 'array reduction made shared',
  mainC: `#include <stdio.h>
#define N 4000
int v[N];
int hist[4];
int main(void) {
    int i;
    for (i = 0; i < N; i++) v[i] = (i * 7) % 13;
    for (i = 0; i < N; i++) {
        hist[v[i] % 4] += 1;
    }
    printf("%d %d %d %d\\n", hist[0], hist[1], hist[2], hist[3]);
    return 0;
}
`,
  loopLine: 8,
  generated: '    #pragma omp parallel for reduction(+:hist) shared(v,histo)',
  racy: '    #pragma omp parallel for shared(v,hist)',
  right: '    #pragma omp parallel for reduction(+:hist) shared(v)',
  raceLine: 10,
  variable: 'hist',
};

/** Row sums with a C89 inner index declared outside: without private(j) every thread shares j. */
export const INNER_INDEX = {
  name: 'inner loop index not private',
  mainC: `#include <stdio.h>
#define N 64
#define M 64
double a[N][M];
double b[N];
int main(void) {
    int i, j;
    for (i = 0; i < N; i++) for (j = 0; j < M; j++) a[i][j] = i + j;
    for (i = 0; i < N; i++) {
        b[i] = 0.0;
        for (j = 0; j < M; j++) b[i] += a[i][j];
    }
    double sum = 0.0;
    for (i = 0; i < N; i++) sum += b[i];
    printf("sum %.6f\\n", sum);
    return 0;
}
`,
  loopLine: 9,
  generated: '    #pragma omp parallel for private(j,tmp_var3) shared(a,b)',
  racy: '    #pragma omp parallel for shared(a,b)',
  right: '    #pragma omp parallel for private(j) shared(a,b)',
  // At -O1 clang 14 gives the store to the shared `j` no line: TSan's stack reaches the directive's
  // own line (the outlined region's frame), and names no variable (j is a stack slot). clang 19
  // gives it the inner loop's line.
  raceLine: 9,
  raceLineBy: { 'clang-19': 12 },
  variable: null,
};

/**
 * The same histogram repaired with an array-section reduction. Not a false positive: clang 14 and
 * 19 do not privatize a section of a file-scope array, so every thread updates the shared `hist`
 * (gcc privatizes it). The whole-array form is right under both.
 */
export const FILE_SCOPE_SECTION = {
  ...ARRAY_REDUCTION,
  name: 'array-section reduction over a file-scope array',
  racy: '    #pragma omp parallel for reduction(+:hist[:4]) shared(v)',
  section: 'hist[:4]',
};

export const RACE_PROGRAMS = [SHARED_TEMP, ARRAY_REDUCTION, INNER_INDEX];
