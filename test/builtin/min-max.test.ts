// reduction(max:…) and reduction(min:…), which DiscoPoP's new do-all detector writes for `>`/`<`
// reductions: every built-in rule that rewrites or carries a reduction clause keeps the operator.
// Each case is a small C program with a max and a min reduction carrying one mistake; under real
// gcc 12 and clang 14 the generated patch fails, the repair keeps `max`/`min`, applies, builds,
// keeps every directive, and the program prints what the sequential build prints with 1 and 4
// threads.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { builtinRepair } from '../../src/builtin/index.js';
import {
  applyAndCompile,
  COMPILERS,
  judgeRun,
  prepareFixture,
  programOutputs,
  runOutputs,
  type Fixture,
  type GeneratorDirective,
} from './harness.js';

const DATA = `static void fill(double *x, int n)
{
    int i;
    for (i = 0; i < n; i++) x[i] = (double) ((i * 7919) % 1000) - 500.5;
}
`;
const MAIN = (calls: string) => `
int main(void)
{
    static double x[1000];
    fill(x, 1000);
    ${calls}
    return 0;
}
`;

/** `spread(x, n)`: the largest element minus the smallest, its two loops written by `loops`. */
const spread = (loops: string) => `#include <stdio.h>
${DATA}
double spread(const double *x, int n)
{
    double hi = -1e300;
    double lo = 1e300;
    int i;
${loops}}
${MAIN('printf("%f\\n", spread(x, 1000));')}`;

interface Case {
  rule: string;
  source: string;
  directives: GeneratorDirective[];
  /** The repaired directives must contain these clauses. */
  kept: string[];
}

const CASES: Case[] = [
  {
    rule: 'drop-section-of-scalar',
    source: `#include <stdio.h>
${DATA}
double peak(const double *x, int n)
{
    double hi = -1e300;
    int i;
    for (i = 0; i < n; i++) {
        if (x[i] > hi) hi = x[i];
    }
    return hi;
}

double trough(const double *x, int n)
{
    double lo = 1e300;
    int i;
    for (i = 0; i < n; i++) {
        if (x[i] < lo) lo = x[i];
    }
    return lo;
}
${MAIN('printf("%f %f\\n", peak(x, 1000), trough(x, 1000));')}`,
    directives: [
      { start_line: 12, shared: ['x'], reduction: ['max:hi[0:4]'] },
      { start_line: 22, shared: ['x'], reduction: ['min:lo[0:4]'] },
    ],
    kept: ['reduction(max:hi)', 'reduction(min:lo)'],
  },
  {
    rule: 'reduce-member-copy',
    source: `#include <stdio.h>
${DATA}
struct range { double lo, hi; };

void extent(const double *x, int n, struct range *r)
{
    int i;
    for (i = 0; i < n; i++) {
        if (x[i] > r->hi) r->hi = x[i];
    }
    for (i = 0; i < n; i++) {
        if (x[i] < r->lo) r->lo = x[i];
    }
}
${MAIN('struct range r = { 1e300, -1e300 };\n    extent(x, 1000, &r);\n    printf("%f %f\\n", r.lo, r.hi);')}`,
    directives: [
      { start_line: 13, reduction: ['max:r->hi'] },
      { start_line: 16, reduction: ['min:r->lo'] },
    ],
    kept: ['reduction(max:r_hi)', 'reduction(min:r_lo)'],
  },
  {
    rule: 'move-directive-onto-loop',
    source: spread(`    double width;
    for (i = 0; i < n; i++) {
        if (x[i] > hi) hi = x[i];
    }
    lo = 1e300;
    for (i = 0; i < n; i++) {
        if (x[i] < lo) lo = x[i];
    }
    width = hi - lo;
    return width;
`),
    directives: [
      { start_line: 13, shared: ['x'], reduction: ['max:hi'] },
      { start_line: 17, shared: ['x'], reduction: ['min:lo'] },
    ],
    kept: ['reduction(max:hi)', 'reduction(min:lo)'],
  },
  {
    rule: 'keep-strongest-data-sharing',
    source: spread(`    for (i = 0; i < n; i++) {
        if (x[i] > hi) hi = x[i];
    }
    for (i = 0; i < n; i++) {
        if (x[i] < lo) lo = x[i];
    }
    return hi - lo;
`),
    directives: [
      { start_line: 13, shared: ['x', 'hi'], reduction: ['max:hi'] },
      { start_line: 16, shared: ['x', 'lo'], reduction: ['min:lo'] },
    ],
    kept: ['reduction(max:hi)', 'reduction(min:lo)'],
  },
  {
    rule: 'drop-out-of-scope-names',
    source: spread(`    for (i = 0; i < n; i++) {
        double v = x[i] * 2.0;
        if (v > hi) hi = v;
    }
    for (i = 0; i < n; i++) {
        double w = x[i] * 0.5;
        if (w < lo) lo = w;
    }
    return hi - lo;
`),
    directives: [
      { start_line: 13, private: ['v'], shared: ['x'], reduction: ['max:hi'] },
      { start_line: 17, private: ['w'], shared: ['x'], reduction: ['min:lo'] },
    ],
    kept: ['reduction(max:hi)', 'reduction(min:lo)'],
  },
];

const scratch = await mkdtemp(join(tmpdir(), 'builtin-min-max-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

async function fixtureFor(c: Case): Promise<Fixture> {
  const dir = join(scratch, 'fixtures', c.rule);
  await mkdir(join(dir, 'project'), { recursive: true });
  await writeFile(join(dir, 'project', 'extremes.c'), c.source);
  return {
    name: `min-max/${c.rule}`,
    dir,
    spec: {
      class: 'invalid-reduction',
      file: 'extremes.c',
      directives: c.directives,
      expect: 'repaired',
      rewritesCode: true,
    },
  };
}

describe.each(COMPILERS)('%s', (family) => {
  it.each(CASES.map((c) => [c.rule, c] as const))('%s keeps max and min', async (_rule, c) => {
    const fixture = await fixtureFor(c);
    const prepared = await prepareFixture(fixture, join(scratch, 'runs'), family);
    expect(prepared.task.build.ok, prepared.task.build.output).toBe(false);
    const result = await builtinRepair(prepared.task);
    expect(result.kind, JSON.stringify(result)).toBe('answer');
    if (result.kind !== 'answer') return;
    expect(result.rules).toContain(c.rule);
    const checked = await applyAndCompile(prepared, result.text, join(scratch, 'runs'));
    const directives = checked.repaired
      .split('\n')
      .filter((line) => /^\s*#\s*pragma\s+omp\s+parallel\b/.test(line))
      .join('\n');
    for (const clause of c.kept) expect(directives).toContain(clause);
    const outputs = {
      original: await runOutputs(
        join(scratch, 'original', family, c.rule),
        fixture,
        prepared.task.sources.get('1')!,
        family,
      ),
      repaired: checked.program ? await programOutputs(checked.program, fixture) : null,
    };
    expect(outputs.original?.[0]).toMatch(/\d/);
    expect(judgeRun({ prepared, result, checked, outputs }, true), checked.compileOutput).toEqual({
      outcome: 'repaired',
      reasons: [],
    });
  });
});

// A whole struct in reduction(max:…): its members are updated by assignment under a comparison,
// not by a compound operator, so reduce-struct-members cannot tell an update from any other write
// and hands the suggestion on rather than guess.
describe.each(COMPILERS)('%s', (family) => {
  it('reduce-struct-members declines a struct reduced with max, saying why', async () => {
    const fixture = await fixtureFor({
      rule: 'struct-max',
      source: `#include <stdio.h>
${DATA}
struct range { double lo, hi; };

struct range extent(const double *x, int n)
{
    struct range r = { 1e300, -1e300 };
    int i;
    for (i = 0; i < n; i++) {
        if (x[i] > r.hi) r.hi = x[i];
    }
    return r;
}
${MAIN('struct range r = extent(x, 1000);\n    printf("%f\\n", r.hi);')}`,
      directives: [{ start_line: 14, shared: ['x'], reduction: ['max:r'] }],
      kept: [],
    });
    const prepared = await prepareFixture(fixture, join(scratch, 'runs'), family);
    expect(prepared.task.build.ok, prepared.task.build.output).toBe(false);
    const result = await builtinRepair(prepared.task);
    expect(result).toMatchObject({
      kind: 'declined',
      reason: expect.stringContaining("'r.hi' is assigned in the loop other than by 'max'"),
    });
  });
});
