// Scope analysis on real C and C++ snippets: the loop a directive governs, the names visible at
// it (with const-ness and class types), and the names declared inside the loop.
import { describe, expect, it } from 'vitest';
import { analyzeSite, type DirectiveSite } from '../../src/builtin/scope.js';
import { collapsibleNest } from '../../src/builtin/collapse-nest.js';
import { parseSource } from '../../src/builtin/syntax.js';

/** Analyzes at the first `#pragma omp` line of the snippet. */
async function siteAt(source: string): Promise<DirectiveSite> {
  const row = source.split('\n').findIndex((line) => /#\s*pragma\s+omp/.test(line));
  return analyzeSite(await parseSource(source), row + 1);
}

const C_KERNEL = `
#include <stddef.h>
static double weights[16];
double norm(size_t n, const double *x, double *restrict y)
{
    const double eps = 1e-9;
    double *const out = y;
    double acc = 0.0;
    #pragma omp parallel for
    for (size_t i = 0; i < n; i++) {
        double sq = x[i] * x[i];
        int k;
        for (k = 0; k < 2; k++) acc += sq * weights[k] + eps;
        out[i] = sq;
    }
    double after = acc;
    return after;
}
`;

describe('analyzeSite on C', () => {
  it('sees parameters, globals and earlier locals, but not later locals or body locals', async () => {
    const site = await siteAt(C_KERNEL);
    expect([...site.visible.keys()].sort()).toEqual(['acc', 'eps', 'n', 'out', 'weights', 'x', 'y']);
    expect(site.declaredInside).toEqual(new Set(['i', 'sq', 'k']));
    expect(site.lookup).toMatchObject({ kind: 'loop', path: [] });
  });

  it('knows which objects are const: top-level const and const pointers, not pointers to const', async () => {
    const site = await siteAt(C_KERNEL);
    expect(site.visible.get('eps')).toMatchObject({ isConst: true, isPointer: false });
    expect(site.visible.get('out')).toMatchObject({ isConst: true, isPointer: true });
    expect(site.visible.get('x')).toMatchObject({ isConst: false, isPointer: true, kind: 'parameter' });
    expect(site.visible.get('weights')).toMatchObject({ isArray: true, isConst: false });
  });

  it('follows an if or a block to the loop and reports a while loop', async () => {
    const guarded = await siteAt(
      'void f(int n, double *v) {\n  int i;\n  #pragma omp parallel for\n  if (n)\n    for (i = 0; i < n; i++) v[i] = 0;\n}\n',
    );
    expect(guarded.lookup.kind).toBe('loop');
    expect(guarded.lookup.kind === 'loop' && guarded.lookup.path.map((node) => node.type)).toEqual(['if_statement']);
    const loop = await siteAt(
      'void f(int n, double *v) {\n  int i = 0;\n  #pragma omp parallel for\n  while (i < n) v[i++] = 0;\n}\n',
    );
    expect(loop.lookup).toMatchObject({ kind: 'not-a-loop' });
    expect(loop.lookup.kind === 'not-a-loop' && loop.lookup.reason).toContain("'while'");
  });

  it('measures how deep a loop nest is perfectly nested', async () => {
    const site = await siteAt(`void f(int n, double *u) {
  #pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      for (int k = 0; k < n; k++) u[k] = 0;
      u[j] = 1;
    }
}
`);
    expect(site.lookup.kind === 'loop' && collapsibleNest(site.lookup.loop, [], 3).depth).toBe(2);
  });
});

describe('analyzeSite on C++', () => {
  it('sees the members of the class in an out-of-class member function', async () => {
    const site = await siteAt(`#include <vector>
struct Grid {
  std::vector<double> cells;
  const int width = 8;
  void relax(double omega);
};
void Grid::relax(double omega) {
  #pragma omp parallel for
  for (int i = 0; i < width; i++) cells[i] *= omega;
}
`);
    expect(site.visible.get('cells')).toMatchObject({ kind: 'member', typeName: 'vector' });
    expect(site.visible.get('width')).toMatchObject({ kind: 'member', isConst: true });
    expect(site.visible.get('omega')).toMatchObject({ kind: 'parameter' });
    expect(site.membersKnown).toBe(true);
  });

  it('marks members unknown when the class is defined elsewhere or has bases', async () => {
    const elsewhere = await siteAt(
      'void Solver::run(int n) {\n  #pragma omp parallel for\n  for (int i = 0; i < n; i++) step(i);\n}\n',
    );
    expect(elsewhere.membersKnown).toBe(false);
    const derived = await siteAt(
      'struct B { int m; };\nstruct D : B { void f(int n); };\nvoid D::f(int n) {\n  #pragma omp parallel for\n  for (int i = 0; i < n; i++) m += i;\n}\n',
    );
    expect(derived.membersKnown).toBe(false);
  });

  it('takes block-scope `T x(args);` as an object, not a function declaration', async () => {
    const site = await siteAt(`#include <vector>
#include <memory>
void f(int n) {
  std::vector<double> v(n);
  std::unique_ptr<double[]> buf(new double[n]);
  #pragma omp parallel for
  for (int i = 0; i < n; i++) v[i] = buf[i];
}
`);
    expect(site.visible.get('v')).toMatchObject({ kind: 'variable', typeName: 'vector' });
    expect(site.visible.get('buf')).toMatchObject({ kind: 'variable', typeName: 'unique_ptr' });
  });

  it('sees range-for and for-init declarations of enclosing loops', async () => {
    const site = await siteAt(`#include <vector>
void f(std::vector<std::vector<double>> &rows) {
  for (auto &row : rows) {
    #pragma omp parallel for
    for (std::size_t j = 0; j < row.size(); ++j) row[j] = 0.0;
  }
}
`);
    expect(site.visible.get('row')).toMatchObject({ isReference: true });
    expect(site.visible.has('j')).toBe(false);
    expect(site.declaredInside.has('j')).toBe(true);
  });
});

describe('analyzeSite at the edges', () => {
  it('finds no target for a directive at the end of a block', async () => {
    const site = await siteAt(
      'void f(int n, double *v) {\n  v[0] = n;\n  #pragma omp parallel for\n}\nvoid g(double *v) {\n  for (int i = 0; i < 4; i++) v[i] = 0;\n}\n',
    );
    expect(site.target).toBeNull();
    expect(site.lookup).toMatchObject({ kind: 'not-a-loop' });
  });
});

describe('the loop a directive means when DiscoPoP put it early (design.md, Directive identity)', () => {
  const loopRow = (site: DirectiveSite) => (site.lookup.kind === 'loop' ? site.lookup.loop.startPosition.row : null);

  it('passes sequential setup: statements, calls, declarations, labels and setup-only ifs', async () => {
    const site = await siteAt(`void f(int n, double *v, double *w) {
  double sum;
  #pragma omp parallel for reduction(+:sum)
  sum = 0.0;
  double t = w[0];
  init(v, n);
again:
  if (n > 4) w[1] = t;
  for (int i = 0; i < n; i++) sum += v[i] * t;
}
`);
    expect(loopRow(site)).toBe(8);
    expect(site.declaredBetween).toEqual(new Set(['t']));
    expect(site.visible.has('t')).toBe(true);
  });

  it('at a closing brace, means the first loop after that block in the enclosing one', async () => {
    const site = await siteAt(
      'void f(int n, double *v) {\n  if (n > 0) {\n    v[0] = 1;\n  #pragma omp parallel for\n  }\n  v[1] = 2;\n  for (int i = 0; i < n; i++) v[i] = 0;\n}\n',
    );
    expect(loopRow(site)).toBe(6);
    expect(site.lookup.kind === 'loop' && site.lookup.path[0]!.type).toBe('compound_statement');
  });

  it('does not pass a jump, a second loop or a block that holds one', async () => {
    const early = await siteAt(
      'int f(int n, double *v) {\n  #pragma omp parallel for\n  if (n == 0) return 0;\n  for (int i = 0; i < n; i++) v[i] = 0;\n  return 1;\n}\n',
    );
    expect(early.lookup.kind === 'not-a-loop' && early.lookup.reason).toContain("a 'return' inside (line 3)");
    const jump = await siteAt(
      'void f(int n, double *v) {\n  #pragma omp parallel for\n  goto done;\n  for (int i = 0; i < n; i++) v[i] = 0;\ndone:;\n}\n',
    );
    expect(jump.lookup.kind === 'not-a-loop' && jump.lookup.reason).toContain(
      'goto statement (line 3), which leaves the block',
    );
    const second = await siteAt(
      'void f(int n, double *v) {\n  int k = 0;\n  #pragma omp parallel for\n  k = 1;\n  while (k < n) k *= 2;\n  for (int i = 0; i < n; i++) v[i] = k;\n}\n',
    );
    expect(second.lookup.kind === 'not-a-loop' && second.lookup.reason).toContain("'while' loop (line 5)");
  });

  it('finds nothing past the end of a function body', async () => {
    const site = await siteAt(
      'void f(int n, double *v) {\n  v[0] = n;\n  #pragma omp parallel for\n  v[1] = n;\n}\nvoid g(double *v) {\n  for (int i = 0; i < 4; i++) v[i] = 0;\n}\n',
    );
    expect(site.lookup).toMatchObject({ kind: 'not-a-loop' });
  });
});
