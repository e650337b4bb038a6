// The layering of src/ (design.md, Layout): imports only point down the stack, type imports and
// lazy `import()` included, there are no cycles, and only src/process.ts spawns processes.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve('src');

/**
 * Bottom to top. A module may import from its own folder and from any row below its own; modules
 * of one row are peers and do not import each other.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['errors', 'fault', 'bytes'],
  ['process'],
  ['interrupt'],
  ['formats'],
  ['patch', 'discopop', 'store'],
  ['build', 'agent', 'builtin'],
  ['repair'],
  ['report'],
  ['log'],
  ['pipeline'],
  ['options'],
  ['cli'],
];

/** The module a file of src/ belongs to: its top folder, or a top-level file's name. */
function moduleOf(file: string): string {
  const [first, ...rest] = path.relative(SRC, file).split(path.sep);
  return rest.length > 0 ? first! : first!.replace(/\.ts$/, '');
}

function rankOf(module: string): number {
  const rank = LAYERS.findIndex((row) => row.includes(module));
  if (rank < 0)
    throw new Error(`src/${module} is in no layer of test/architecture.test.ts; add it where design.md puts it`);
  return rank;
}

interface Edge {
  from: string;
  to: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every module specifier of a file: static, type-only, re-exports and dynamic `import()`. */
function specifiers(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((imported) => imported.fileName);
}

function graph(files: readonly string[]): { edges: Edge[]; packages: Map<string, string[]> } {
  const edges: Edge[] = [];
  const packages = new Map<string, string[]>();
  for (const file of files) {
    for (const spec of specifiers(file)) {
      if (spec.startsWith('.')) {
        edges.push({ from: file, to: path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts') });
      } else {
        packages.set(spec, [...(packages.get(spec) ?? []), file]);
      }
    }
  }
  return { edges, packages };
}

function upwardImports(edges: readonly Edge[]): string[] {
  return edges
    .filter(({ from, to }) => {
      const [a, b] = [moduleOf(from), moduleOf(to)];
      return a !== b && rankOf(b) >= rankOf(a);
    })
    .map(({ from, to }) => `${rel(from)} → ${rel(to)} (${moduleOf(from)} may not import ${moduleOf(to)})`);
}

/** Each cycle once, as the files it runs through (Tarjan's strongly connected components). */
function cycles(files: readonly string[], edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>(files.map((file) => [file, []]));
  for (const { from, to } of edges) next.get(from)?.push(to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(rel(member));
    } while (member !== file);
    if (component.length > 1 || next.get(file)!.includes(file)) found.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

function rel(file: string): string {
  return path.relative(path.dirname(SRC), file);
}

describe('the import graph of src/', () => {
  const files = sourceFiles(SRC);
  const { edges, packages } = graph(files);

  it('reads every relative import of every file', () => {
    // Guards the walk itself: a parser that saw nothing would pass every other test here.
    expect(files.length).toBeGreaterThan(50);
    expect(edges.length).toBeGreaterThan(files.length);
    for (const { from, to } of edges)
      expect(files, `${rel(from)} imports ${rel(to)}, which does not exist`).toContain(to);
  });

  it('only points down the stack of design.md (Layout)', () => {
    expect(upwardImports(edges)).toEqual([]);
  });

  it('has no cycles', () => {
    expect(cycles(files, edges)).toEqual([]);
  });

  it('spawns processes only in src/process.ts', () => {
    const spawners = ['execa', 'child_process', 'node:child_process'].flatMap((name) => packages.get(name) ?? []);
    expect(spawners.map(rel)).toEqual(['src/process.ts']);
  });

  // design.md: the composer only wires the stages beside it; work that creeps into it belongs in a stage.
  it('keeps the composer src/pipeline/index.ts short', () => {
    expect(readFileSync(path.join(SRC, 'pipeline', 'index.ts'), 'utf8').split('\n').length).toBeLessThanOrEqual(
      COMPOSER_MAX_LINES,
    );
  });
});

const COMPOSER_MAX_LINES = 200;

/**
 * Assignments to a field of an object a function was handed (a parameter, or a value taken from
 * one): `context.x = …`, `record.status = …`, `Object.assign(record, …)`, `tally.n++`. A stage
 * shares nothing mutable with another; what it learns is an event or its return value.
 */
function foreignFieldWrites(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const rootOf = (node: ts.Expression): ts.Expression => {
    let e = node;
    while (
      ts.isPropertyAccessExpression(e) ||
      ts.isElementAccessExpression(e) ||
      ts.isParenthesizedExpression(e) ||
      ts.isNonNullExpression(e)
    )
      e = e.expression;
    return e;
  };
  const bound = (name: ts.BindingName, into: Set<string>): void => {
    if (ts.isIdentifier(name)) into.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bound(element.name, into);
  };
  const visit = (node: ts.Node, handed: Set<string>): void => {
    let names = handed;
    if (ts.isFunctionLike(node)) {
      const own = new Set(handed);
      for (const parameter of node.parameters) bound(parameter.name, own);
      names = own;
    }
    if (ts.isVariableDeclaration(node) && node.initializer) {
      const root = rootOf(node.initializer);
      if (ts.isIdentifier(root) && names.has(root.text)) bound(node.name, names);
    }
    const report = (at: ts.Node) => {
      const { line } = source.getLineAndCharacterOfPosition(at.getStart());
      found.push(`${rel(file)}:${line + 1}: ${at.getText()}`);
    };
    const handedRoot = (target: ts.Expression) => {
      const root = rootOf(target);
      return ts.isIdentifier(root) && names.has(root.text);
    };
    const written = (target: ts.Expression) => {
      if ((ts.isPropertyAccessExpression(target) || ts.isElementAccessExpression(target)) && handedRoot(target))
        report(target);
    };
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= ts.SyntaxKind.LastAssignment
    )
      written(node.left);
    if (
      (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
      (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)
    )
      written(node.operand);
    if (
      ts.isCallExpression(node) &&
      node.expression.getText() === 'Object.assign' &&
      node.arguments[0] &&
      handedRoot(node.arguments[0])
    )
      report(node);
    ts.forEachChild(node, (child) => visit(child, names));
  };
  visit(source, new Set());
  return found;
}

describe('the stages of src/pipeline/', () => {
  it('finds a field written on an object a function was handed', () => {
    const sample = [
      'export function stage(context: C, { pool }: P) {',
      '  const { options } = context;',
      '  const local = { n: 0 };',
      '  local.n = 1;',
      '  context.funnel = null;',
      '  options.mode = "repair";',
      '  pool.count++;',
      '  Object.assign(options, {});',
      '}',
    ].join('\n');
    expect(foreignFieldWrites(path.join(SRC, 'pipeline', 'sample.ts'), sample)).toEqual([
      'src/pipeline/sample.ts:5: context.funnel',
      'src/pipeline/sample.ts:6: options.mode',
      'src/pipeline/sample.ts:7: pool.count',
      'src/pipeline/sample.ts:8: Object.assign(options, {})',
    ]);
  });

  it('never assign a field of an object another stage handed them', () => {
    const stages = sourceFiles(path.join(SRC, 'pipeline'));
    expect(stages.length).toBeGreaterThan(5);
    expect(stages.flatMap((file) => foreignFieldWrites(file, readFileSync(file, 'utf8')))).toEqual([]);
  });
});
