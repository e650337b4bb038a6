// The tree stays as the formatter writes it, so a diff shows only what changed in meaning and CI
// fails on code that was not formatted (`npm run format` fixes it).
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { expect, test } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

// What .prettierignore lets through; filtering first spares prettier thousands of fixture files.
const CODE = /\.(?:ts|mts|mjs|js)$/;

function filesGitKnows(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root });
  return out.toString('utf8').split('\0').filter(Boolean);
}

async function unformatted(files: readonly string[]): Promise<string[]> {
  const ignorePath = path.join(root, '.prettierignore');
  const bad: string[] = [];
  for (const file of files.filter((name) => CODE.test(name))) {
    const filepath = path.join(root, file);
    const info = await prettier.getFileInfo(filepath, { ignorePath });
    if (info.ignored || info.inferredParser === null) continue;
    const options = await prettier.resolveConfig(filepath);
    let source: string;
    try {
      source = readFileSync(filepath, 'utf8');
    } catch {
      continue; // deleted in the working tree but still in the index
    }
    if (!(await prettier.check(source, { ...options, filepath }))) bad.push(file);
  }
  return bad;
}

test('every code file of the tree is formatted by prettier', async () => {
  expect(await unformatted(filesGitKnows())).toEqual([]);
});

test('a planted unformatted file is found, and a fixture is never checked', async () => {
  const planted = path.join('test', `.unformatted-probe-${process.pid}.ts`);
  const fixture = path.join('fixtures', 'demo', `.unformatted-probe-${process.pid}.ts`);
  try {
    writeFileSync(path.join(root, planted), 'const  x = {a:1}\n');
    writeFileSync(path.join(root, fixture), 'const  x = {a:1}\n');
    expect(await unformatted([planted, fixture])).toEqual([planted]);
  } finally {
    rmSync(path.join(root, planted), { force: true });
    rmSync(path.join(root, fixture), { force: true });
  }
});
