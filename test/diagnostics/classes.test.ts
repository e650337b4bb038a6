// Every error class, produced by real gcc and real clang from the same small sources in
// fixtures/diagnostics/<class>/, parsed and classified as the build stage does.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyByPosition, firstError, ignoresDirective, parseDiagnostics } from '../../src/build/diagnostics.js';
import type { Diagnostic } from '../../src/formats/types.js';
import {
  BUILDS,
  CLANG,
  CLANG_19,
  CLANG_19_MISSING_HINT,
  CLANG_MISSING_HINT,
  compile,
  directiveLinesOf,
  GCC,
  isInstalled,
  projectWith,
  type Compiler,
} from './compilers.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/diagnostics');
const cases = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((dir) =>
    readdirSync(path.join(FIXTURES, dir.name))
      .filter((file) => /\.(c|cpp)$/.test(file))
      .map((file) => ({ expected: dir.name, relPath: `${dir.name}/${file}` })),
  );

const clangInstalled = await isInstalled('clang');
const clang19Installed = await isInstalled('clang-19');
const project = projectWith(
  FIXTURES,
  cases.map((c) => c.relPath),
);
const directiveLines = directiveLinesOf(project);

async function diagnose(compiler: Compiler, relPath: string): Promise<{ exitCode: number; diagnostics: Diagnostic[] }> {
  const { exitCode, output } = await compile({
    compiler,
    source: relPath,
    cwd: FIXTURES,
    link: relPath.startsWith('link/'),
    extraFlags: ['-Wall'],
  });
  return { exitCode, diagnostics: classifyByPosition(parseDiagnostics(output, project, FIXTURES), directiveLines) };
}

describe.each([
  { compiler: GCC, available: true, hint: '' },
  { compiler: CLANG, available: clangInstalled, hint: CLANG_MISSING_HINT },
  { compiler: CLANG_19, available: clang19Installed, hint: CLANG_19_MISSING_HINT },
])('error classes with $compiler.name', ({ compiler, available, hint }) => {
  if (!available) {
    it.skip(`${compiler.name}: ${hint}`, () => {});
    return;
  }
  it.each(cases)('$relPath → $expected', async ({ expected, relPath }) => {
    const { exitCode, diagnostics } = await diagnose(compiler, relPath);
    const builds = BUILDS[compiler.family][relPath];
    if (builds !== undefined) {
      expect(exitCode).toBe(0);
      expect(firstError(diagnostics)).toBeUndefined();
      if (builds === 'ignored') expect(diagnostics.find((d) => ignoresDirective(d.message))?.errorClass).toBe(expected);
      return;
    }
    expect(exitCode).not.toBe(0);
    const error = firstError(diagnostics);
    expect(error, JSON.stringify(diagnostics, null, 1)).toBeDefined();
    expect(error?.errorClass).toBe(expected);
    if (expected !== 'link') {
      expect(error).toMatchObject({ file: relPath, fileId: expect.any(String), line: expect.any(Number) });
    }
  });
});
