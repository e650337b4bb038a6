// `npm run functions`: the functions of src/ longer than 50 lines, longest first, and how many are
// over 50 and over 80 — the measure of issue 46: a function, method, constructor, accessor, arrow
// function or function expression with a body, counted from its first line to its last as the file
// holds it (after Prettier), nested functions counted on their own as well as inside their parent.
// `--over N` lists those over N lines instead.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const overIndex = process.argv.indexOf('--over');
const listOver = overIndex === -1 ? 50 : Number(process.argv[overIndex + 1]);
if (!Number.isInteger(listOver) || listOver < 1) {
  console.error('--over: expected a whole number of lines, at least 1');
  process.exit(2);
}

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function nameOf(node, file) {
  if (node.name) return node.name.getText(file);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) return parent.name.getText(file);
  return '(anonymous)';
}

const isFunction = (node) =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node) ||
  ts.isArrowFunction(node) ||
  ts.isFunctionExpression(node);

const functions = [];
for (const path of sourceFiles('src')) {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (isFunction(node) && node.body) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      functions.push({ lines: last - first + 1, where: `${path}:${first + 1}`, name: nameOf(node, file) });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}
functions.sort((a, b) => b.lines - a.lines || a.where.localeCompare(b.where));
for (const f of functions.filter((f) => f.lines > listOver))
  console.log(`${String(f.lines).padStart(4)}  ${f.where}  ${f.name}`);
const over = (n) => functions.filter((f) => f.lines > n).length;
console.log(`${functions.length} functions; over 50 lines: ${over(50)}; over 80 lines: ${over(80)}`);
