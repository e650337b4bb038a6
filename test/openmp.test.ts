// OpenMP directive parsing: the generator's form and spaced or continued pragmas split into construct
// and clauses, nested parentheses stay in one clause, and rendering gives back the exact bytes.
import { describe, expect, it } from 'vitest';
import { joinContinuations, parseDirective, renderDirective } from '../src/patch/openmp.js';

describe('parseDirective', () => {
  it('splits the generator form into construct and clauses', () => {
    const directive = parseDirective('    #pragma omp parallel for private(i) shared(a,b) reduction(+:sum) ');
    expect(directive).toEqual({
      indent: '    ',
      construct: 'parallel for',
      clauses: [
        { name: 'private', args: 'i', vars: ['i'] },
        { name: 'shared', args: 'a,b', vars: ['a', 'b'] },
        { name: 'reduction', args: '+:sum', modifier: '+', vars: ['sum'] },
      ],
    });
  });

  it('accepts spaced and continued pragmas', () => {
    const line = joinContinuations(['# pragma omp parallel for \\', '   firstprivate(n) collapse(2)']);
    expect(parseDirective(line)).toMatchObject({
      construct: 'parallel for',
      clauses: [
        { name: 'firstprivate', vars: ['n'] },
        { name: 'collapse', args: '2' },
      ],
    });
  });

  it('keeps nested parentheses and array sections inside one clause', () => {
    const directive = parseDirective(
      '#pragma omp target teams distribute parallel for device(0) map(to: a[0:n], f(x)) ',
    );
    expect(directive?.construct).toBe('target teams distribute parallel for');
    expect(directive?.clauses[1]).toEqual({
      name: 'map',
      args: 'to: a[0:n], f(x)',
      modifier: 'to',
      vars: ['a[0:n]', 'f(x)'],
    });
  });

  it('reads the generator misspelling depends as a clause', () => {
    const directive = parseDirective('#pragma omp task depends(in:a) ');
    expect(directive?.clauses).toEqual([{ name: 'depends', args: 'in:a', modifier: 'in', vars: ['a'] }]);
  });

  it('returns null for other lines', () => {
    expect(parseDirective('for (i = 0; i < n; i++)')).toBeNull();
    expect(parseDirective('#pragma once')).toBeNull();
  });

  it('renders back the exact generator bytes', () => {
    const line = '\t#pragma omp parallel for firstprivate(n) private(i) shared(x) ';
    expect(renderDirective(parseDirective(line)!)).toBe(line);
  });
});
