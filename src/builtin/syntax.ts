// C/C++ syntax trees from tree-sitter (WebAssembly build). The runtime and the C++ grammar are
// loaded once per process; the C++ grammar also parses C well enough for scope questions.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as TreeSitter from '@vscode/tree-sitter-wasm';

export type SyntaxNode = TreeSitter.Node;
export type SyntaxTree = TreeSitter.Tree;

const require = createRequire(import.meta.url);
const runtimePath = require.resolve('@vscode/tree-sitter-wasm');
const wasmDir = dirname(runtimePath);

let parserPromise: Promise<TreeSitter.Parser> | null = null;

async function loadParser(): Promise<TreeSitter.Parser> {
  const runtime = require(runtimePath) as typeof TreeSitter;
  await runtime.Parser.init({ locateFile: (file: string) => join(wasmDir, file) });
  const language = await runtime.Language.load(await readFile(join(wasmDir, 'tree-sitter-cpp.wasm')));
  const parser = new runtime.Parser();
  parser.setLanguage(language);
  return parser;
}

/**
 * Parses C or C++ source. Pragma lines are blanked first (same length, so rows and offsets stay):
 * tree-sitter treats `#pragma` as a preprocessor line and misparses unbraced bodies around it,
 * while for scope questions a directive is invisible anyway.
 */
export async function parseSource(source: string): Promise<SyntaxTree> {
  parserPromise ??= loadParser();
  const parser = await parserPromise;
  const tree = parser.parse(blankPragmaLines(source));
  if (!tree) throw new Error('tree-sitter returned no tree');
  return tree;
}

export function blankPragmaLines(source: string): string {
  const lines = source.split('\n');
  let continuing = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (continuing || /^\s*#\s*pragma\b/.test(line)) {
      continuing = /\\\s*$/.test(line);
      lines[index] = ' '.repeat(line.length);
    }
  }
  return lines.join('\n');
}
