// How deep a loop nest may be collapsed: OpenMP's `collapse(n)` needs n perfectly nested loops —
// nothing between their headers, not a statement, a declaration nor a directive — with bounds
// that do not depend on an outer collapsed loop's index. gcc rejects a nest that breaks this;
// clang 14 builds it and the collapsed loop runs the code in between once per inner iteration.
import { declarationsOf } from './declarations.js';
import { loopVariablesOf } from './rules/source-facts.js';
import type { SyntaxNode } from './syntax.js';

const LOOPS = new Set(['for_statement', 'for_range_loop']);

/** What keeps the next loop level out of the collapse. */
export interface NestBreak {
  /**
   * Code between the two loops' headers, an inner bound that reads an outer index, or the
   * triangular nest over `unsigned int` indices that gcc 12 miscompiles (`gcc-unsigned`).
   */
  kind: 'between' | 'bound' | 'gcc-unsigned';
  /** 0-based row of what stands between the loops (the inner loop's header for a bound). */
  row: number;
  /** What, for a reason a user reads: "the statement 'y[r] = 0.0;'", "'j < i' reads 'i'". */
  what: string;
  /** 0-based rows of the outer and the inner loop's headers. */
  outerRow: number;
  innerRow: number | null;
}

/**
 * For a nest gcc compiles: the type of a name visible at the directive (indices declared before
 * the loop), so that its unsigned triangular fault is a break as well.
 */
export interface GccNest {
  typeOf(name: string): string | null;
}

/**
 * The number of loops from `loop` down that `collapse` may cover (at most `wanted`), and what
 * stops the next level when that is fewer. `lines` are the text the tree was parsed from, with
 * its pragma lines (the tree does not hold them).
 */
export function collapsibleNest(
  loop: SyntaxNode,
  lines: readonly string[],
  wanted: number,
  gcc?: GccNest,
): { depth: number; stop: NestBreak | null } {
  const indices: string[] = [...loopVariablesOf(loop)];
  let current = loop;
  for (let depth = 1; depth < wanted; depth++) {
    const body = current.childForFieldName('body');
    const statements =
      body?.type === 'compound_statement'
        ? body.namedChildren.filter((child): child is SyntaxNode => child !== null && child.type !== 'comment')
        : body
          ? [body]
          : [];
    const inner = statements.find((statement) => LOOPS.has(statement.type)) ?? null;
    const outerRow = current.startPosition.row;
    const innerRow = inner?.startPosition.row ?? null;
    const other = statements.find((statement) => statement !== inner);
    if (inner === null || other !== undefined) {
      const what = other ?? statements[0];
      return {
        depth,
        stop: {
          kind: 'between',
          row: what?.startPosition.row ?? outerRow,
          what: what ? describeStatement(what) : 'an empty body',
          outerRow,
          innerRow,
        },
      };
    }
    const pragmaRow = rowsBetween(outerRow, inner.startPosition.row).find((row) =>
      /^\s*#\s*pragma\b/.test(lines[row] ?? ''),
    );
    if (pragmaRow !== undefined)
      return {
        depth,
        stop: {
          kind: 'between',
          row: pragmaRow,
          what: `the directive '${(lines[pragmaRow] ?? '').trim()}'`,
          outerRow,
          innerRow,
        },
      };
    const stop = boundReadingOuter(inner, indices);
    if (stop !== null)
      return { depth, stop: { kind: 'bound', row: inner.startPosition.row, what: stop, outerRow, innerRow } };
    const fault = gcc && gccUnsignedTriangle(current, inner, indices, gcc);
    if (fault)
      return { depth, stop: { kind: 'gcc-unsigned', row: inner.startPosition.row, what: fault, outerRow, innerRow } };
    indices.push(...loopVariablesOf(inner));
    current = inner;
  }
  return { depth: wanted, stop: null };
}

/**
 * An inner loop header part that reads an outer collapsed index in a way OpenMP does not allow:
 * any use in the step, and in a bound anything but the linear form OpenMP 5.0 permits (`j < i`,
 * `j = i + 1`, `j < n - 2 * i`: gcc 12 and clang 14 collapse these correctly) — a call, a
 * subscript, a division or the index twice (`j < f(i)`, `j < a[i]`, `j <= i * i`).
 */
function boundReadingOuter(inner: SyntaxNode, indices: readonly string[]): string | null {
  const uses = (text: string) =>
    indices.flatMap((name) => text.match(new RegExp(`(?<![\\w.]|->)\\b${name}\\b`, 'g')) ?? []);
  const step = inner.childForFieldName('update');
  const stepUses = step ? uses(step.text) : [];
  if (step && stepUses.length > 0) return `the step '${firstLine(step.text)}' reads '${stepUses[0]}'`;
  for (const part of ['initializer', 'condition', 'right'].map((field) => inner.childForFieldName(field))) {
    if (!part) continue;
    const read = uses(part.text);
    if (read.length === 0) continue;
    if (read.length > 1 || /[[\]/%]|[\w)]\s*\(/.test(part.text))
      return `the bound '${firstLine(part.text)}' reads '${read[0]}' other than linearly`;
  }
  return null;
}

/**
 * gcc 12.2 miscompiles `collapse` over `for (i…) for (j = i; j < N; j++)` when the indices are
 * `unsigned int` and the bound is a constant: with more than one thread it skips some iterations
 * and runs others twice (measured: 175 of 703 wrong at 4 threads). `int`, 64-bit unsigned indices,
 * `j = i + 1` and a runtime bound are right, so only that shape is named. A bound is constant when
 * it holds no identifier, or only upper-case ones (macros) where the file is read without the
 * preprocessor.
 */
function gccUnsignedTriangle(
  outer: SyntaxNode,
  inner: SyntaxNode,
  indices: readonly string[],
  gcc: GccNest,
): string | null {
  const init = inner.childForFieldName('initializer');
  const start = /=\s*\(?\s*([A-Za-z_]\w*)\s*\)?\s*;?$/.exec(init?.text ?? '')?.[1];
  if (start === undefined || !indices.includes(start)) return null;
  const condition = inner.childForFieldName('condition')?.text ?? '';
  const bound = condition.split(/<=?|>=?|!=/)[1] ?? '';
  if ([...bound.matchAll(/[A-Za-z_]\w*/g)].some((name) => /[a-z]/.test(name[0]))) return null;
  const [own] = loopVariablesOf(inner);
  const typeOf = (loop: SyntaxNode, name: string) => {
    const header = loop.childForFieldName('initializer');
    const declared =
      header?.type === 'declaration' ? declarationsOf(header, 'variable').find((d) => d.name === name) : undefined;
    return declared?.typeText ?? gcc.typeOf(name);
  };
  const types = [typeOf(outer, start), own === undefined ? null : typeOf(inner, own)];
  if (!types.some((type) => type !== null && UNSIGNED_INT.test(type))) return null;
  return `starts at the outer index '${start}' ('${firstLine(init!.text).replace(/;$/, '')}') and runs to a constant bound over unsigned int indices`;
}

const UNSIGNED_INT = /^(?:unsigned(?:\s+int)?|uint32_t|u_int32_t)$/;

function rowsBetween(after: number, before: number): number[] {
  return Array.from({ length: Math.max(0, before - after - 1) }, (_, index) => after + 1 + index);
}

function describeStatement(node: SyntaxNode): string {
  const kind = node.type === 'declaration' ? 'declaration' : 'statement';
  return `the ${kind} '${firstLine(node.text)}'`;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0]!.trim();
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}
