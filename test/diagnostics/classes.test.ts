// Every error class, produced by real gcc and real clang from the same small sources in
// fixtures/diagnostics/<class>/, parsed and classified as the build stage does.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstError, parseDiagnostics } from '../../src/build/diagnostics.js';
import type { Diagnostic } from '../../src/formats/types.js';
import { CLANG, CLANG_MISSING_HINT, compile, GCC, isInstalled, projectWith, type Compiler } from './compilers.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/diagnostics');
const cases = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((dir) =>
    readdirSync(path.join(FIXTURES, dir.name))
      .filter((file) => /\.(c|cpp)$/.test(file))
      .map((file) => ({ expected: dir.name, relPath: `${dir.name}/${file}` })),
  );

// clang accepts the misspelt `depends` with a warning (it ignores the rest of the pragma line), so
// for clang that case is judged by the warning; it also builds `reduction(+:this->m)` and a
// reduction over a class type with operator+. Every other case must fail with an error.
const WARNING_ONLY: Record<string, readonly string[]> = { clang: ['unknown-clause/depends.c', 'unknown-clause/depends.cpp'] };
const ACCEPTED: Record<string, readonly string[]> = { clang: ['undeclared-in-clause/member-reduction.cpp', 'invalid-reduction/complex.cpp'] };

const clangInstalled = await isInstalled('clang');

async function diagnose(compiler: Compiler, relPath: string): Promise<{ exitCode: number; diagnostics: Diagnostic[] }> {
  const { exitCode, output } = await compile({
    compiler,
    source: relPath,
    cwd: FIXTURES,
    link: relPath.startsWith('link/'),
  });
  return { exitCode, diagnostics: parseDiagnostics(output, projectWith(FIXTURES, cases.map((c) => c.relPath)), FIXTURES) };
}

describe.each([
  { compiler: GCC, available: true },
  { compiler: CLANG, available: clangInstalled },
])('error classes with $compiler.family', ({ compiler, available }) => {
  if (!available) {
    it.skip(`${compiler.family}: ${CLANG_MISSING_HINT}`, () => {});
    return;
  }
  it.each(cases)('$relPath → $expected', async ({ expected, relPath }) => {
    const { exitCode, diagnostics } = await diagnose(compiler, relPath);
    if (WARNING_ONLY[compiler.family]?.includes(relPath)) {
      expect(exitCode).toBe(0);
      expect(diagnostics.find((d) => d.severity === 'warning')?.errorClass).toBe(expected);
      return;
    }
    if (ACCEPTED[compiler.family]?.includes(relPath)) {
      expect(exitCode).toBe(0);
      expect(firstError(diagnostics)).toBeUndefined();
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
