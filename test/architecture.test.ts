// The layering of src/ (design.md, Layout): imports only point down the stack, type imports and
// lazy `import()` included, there are no cycles, and only src/process.ts spawns processes. Each
// folder of src/ keeps its own rules besides (FOLDER_RULES), each rule tested on a planted violation.
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
});

/** design.md: the composer only wires the stages beside it; work that creeps into it belongs in a stage. */
const COMPOSER_MAX_LINES = 40;

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

/** A node built-in that reads or writes files, runs processes or talks to the network. */
const IO_MODULES = /^(node:)?(fs|fs\/promises|child_process|net|http|https|dgram|os|worker_threads)$/;

/** The names of node:fs that change the file system. */
const FS_WRITES = new Set([
  'writeFile',
  'writeFileSync',
  'appendFile',
  'appendFileSync',
  'mkdir',
  'mkdirSync',
  'mkdtemp',
  'mkdtempSync',
  'rm',
  'rmSync',
  'rename',
  'renameSync',
  'unlink',
  'unlinkSync',
  'copyFile',
  'copyFileSync',
  'cp',
  'symlink',
  'chmod',
  'truncate',
  'open',
  'openSync',
  'writeSync',
  'createWriteStream',
]);

/** `process.x` and `console.x` in a file, as `process.x` (`console.log`…). */
function globalUses(source: ts.SourceFile): { text: string; line: number }[] {
  const found: { text: string; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isPropertyAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      (node.expression.text === 'process' || node.expression.text === 'console')
    )
      found.push({ text: node.getText(), line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** What a file imports: each module with the names it takes from it. */
function importsOf(source: ts.SourceFile): { module: string; names: string[]; line: number }[] {
  return source.statements.filter(ts.isImportDeclaration).map((declaration) => {
    const bindings = declaration.importClause?.namedBindings;
    return {
      module: (declaration.moduleSpecifier as ts.StringLiteral).text,
      names:
        bindings && ts.isNamedImports(bindings) ? bindings.elements.map((e) => (e.propertyName ?? e.name).text) : [],
      line: source.getLineAndCharacterOfPosition(declaration.getStart()).line + 1,
    };
  });
}

interface Rule {
  /** What the folder promises, in the words of docs/architecture.md. */
  says: string;
  /** Each place the file breaks it, as `file:line: what`. */
  check(file: string, text: string): string[];
}

const parse = (file: string, text: string) => ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);

const RULES = {
  pure: {
    says: 'reads no file, runs no process, touches no global of the process',
    check: (file, text) => {
      const source = parse(file, text);
      return [
        ...importsOf(source)
          .filter(({ module }) => IO_MODULES.test(module) || /(^|\/)process\.js$/.test(module))
          .map(({ module, line }) => `${rel(file)}:${line}: imports ${module}`),
        ...globalUses(source).map(({ text, line }) => `${rel(file)}:${line}: ${text}`),
      ];
    },
  },
  readsOnly: {
    says: 'reads files, never changes one',
    check: (file, text) =>
      importsOf(parse(file, text)).flatMap(({ module, names, line }) =>
        /^(node:)?fs(\/promises)?$/.test(module)
          ? names.filter((name) => FS_WRITES.has(name)).map((name) => `${rel(file)}:${line}: imports ${name}`)
          : [],
      ),
  },
  noSchemas: {
    says: 'defines no format of its own: every zod schema is in src/formats/',
    check: (file, text) =>
      importsOf(parse(file, text))
        .filter(({ module }) => module === 'zod')
        .map(({ line }) => `${rel(file)}:${line}: imports zod`),
  },
  noPrints: {
    says: 'events, not prints: only src/report/ and src/cli.ts write to the terminal',
    check: (file, text) =>
      globalUses(parse(file, text))
        .filter(({ text }) => /^(process\.(stdout|stderr)|console\.)/.test(text))
        .map(({ text, line }) => `${rel(file)}:${line}: ${text}`),
  },
  handedEnvironment: {
    says: 'reads the environment it is handed (ctx.env), never process.env',
    check: (file, text) =>
      globalUses(parse(file, text))
        .filter(({ text }) => text === 'process.env')
        .map(({ line }) => `${rel(file)}:${line}: process.env`),
  },
  noSharedState: {
    says: 'a stage never assigns a field of an object it was handed: what it learns is an event or its return value',
    check: (file, text) => foreignFieldWrites(file, text),
  },
  shortComposer: {
    says: `the composer's pipeline() fits on one screen (at most ${COMPOSER_MAX_LINES} lines)`,
    check: (file, text) => {
      if (path.basename(file) !== 'index.ts') return [];
      const found = parse(file, text).statements.find(
        (node): node is ts.FunctionDeclaration => ts.isFunctionDeclaration(node) && node.name?.text === 'pipeline',
      );
      if (!found) return [`${rel(file)}: no function pipeline()`];
      const source = found.getSourceFile();
      const lines =
        source.getLineAndCharacterOfPosition(found.getEnd()).line -
        source.getLineAndCharacterOfPosition(found.getStart()).line +
        1;
      return lines > COMPOSER_MAX_LINES ? [`${rel(file)}: pipeline() is ${lines} lines`] : [];
    },
  },
} satisfies Record<string, Rule>;

/**
 * The rules of each folder of src/ (docs/architecture.md, "What each module holds"). Its place in
 * the stack (LAYERS), no cycle and process spawns only in src/process.ts hold for every file besides.
 */
const FOLDER_RULES: Readonly<Record<string, readonly (keyof typeof RULES)[]>> = {
  formats: ['pure'],
  patch: ['noSchemas', 'noPrints'],
  discopop: ['readsOnly', 'noPrints'],
  store: ['noSchemas', 'noPrints', 'handedEnvironment'],
  build: ['noSchemas', 'noPrints'],
  agent: ['noSchemas', 'noPrints'],
  builtin: ['readsOnly', 'noSchemas', 'noPrints', 'handedEnvironment'],
  repair: ['noSchemas', 'noPrints', 'handedEnvironment'],
  report: ['noSchemas'],
  pipeline: ['noSchemas', 'noPrints', 'handedEnvironment', 'noSharedState', 'shortComposer'],
  options: ['noSchemas', 'noPrints', 'handedEnvironment'],
};

/** src/patch/ is pure but for the one `diff -Naru` call, in this file. */
const PATCH_DIFF_CALL = 'canonical.ts';

describe('the rules of each folder of src/', () => {
  it('names the rules of every folder', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(Object.keys(FOLDER_RULES).sort()).toEqual(folders);
  });

  for (const [folder, rules] of Object.entries(FOLDER_RULES)) {
    it(`src/${folder}/: ${rules.join(', ')}`, () => {
      const files = sourceFiles(path.join(SRC, folder));
      expect(files.length).toBeGreaterThan(0);
      const broken = files.flatMap((file) => {
        const text = readFileSync(file, 'utf8');
        return rules.flatMap((name) => RULES[name].check(file, text).map((where) => `${where} (${RULES[name].says})`));
      });
      expect(broken).toEqual([]);
    });
  }

  it('src/patch/ is pure but for its one diff call', () => {
    const files = sourceFiles(path.join(SRC, 'patch')).filter((file) => path.basename(file) !== PATCH_DIFF_CALL);
    expect(files.flatMap((file) => RULES.pure.check(file, readFileSync(file, 'utf8')))).toEqual([]);
  });

  // Each rule finds what it forbids: a rule that found nothing would pass every folder.
  const planted: Record<keyof typeof RULES, { file: string; text: string; found: string[] }> = {
    pure: {
      file: 'formats/sample.ts',
      text: "import { readFile } from 'node:fs/promises';\nimport { runProcess } from '../process.js';\nexport const cwd = process.cwd();\n",
      found: [
        'src/formats/sample.ts:1: imports node:fs/promises',
        'src/formats/sample.ts:2: imports ../process.js',
        'src/formats/sample.ts:3: process.cwd',
      ],
    },
    readsOnly: {
      file: 'discopop/sample.ts',
      text: "import { readFile, writeFile } from 'node:fs/promises';\nimport { renameSync as move } from 'node:fs';\n",
      found: ['src/discopop/sample.ts:1: imports writeFile', 'src/discopop/sample.ts:2: imports renameSync'],
    },
    noSchemas: {
      file: 'store/sample.ts',
      text: "import { z } from 'zod';\nexport const Own = z.object({});\n",
      found: ['src/store/sample.ts:1: imports zod'],
    },
    noPrints: {
      file: 'build/sample.ts',
      text: 'export function say(line: string) {\n  console.log(line);\n  process.stderr.write(line);\n}\n',
      found: ['src/build/sample.ts:2: console.log', 'src/build/sample.ts:3: process.stderr'],
    },
    handedEnvironment: {
      file: 'options/sample.ts',
      text: 'export const home = process.env.HOME;\n',
      found: ['src/options/sample.ts:1: process.env'],
    },
    noSharedState: {
      file: 'pipeline/sample.ts',
      text: 'export function stage(context: C) {\n  context.funnel = null;\n}\n',
      found: ['src/pipeline/sample.ts:2: context.funnel'],
    },
    shortComposer: {
      file: 'pipeline/index.ts',
      text: `async function pipeline() {\n${'  step();\n'.repeat(COMPOSER_MAX_LINES)}}\n`,
      found: [`src/pipeline/index.ts: pipeline() is ${COMPOSER_MAX_LINES + 2} lines`],
    },
  };
  for (const [name, sample] of Object.entries(planted)) {
    it(`${name} finds a planted violation`, () => {
      expect(RULES[name as keyof typeof RULES].check(path.join(SRC, sample.file), sample.text)).toEqual(sample.found);
    });
  }
});

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
});
