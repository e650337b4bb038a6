// How build output is read: colour, quoting, locales, file names as make and the linker print them,
// and patch's own failure text, all produced by the real tools.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyError, firstError, parseDiagnostics } from '../../src/build/diagnostics.js';
import { runProcess } from '../../src/process.js';
import { CLANG, compile, GCC, isInstalled, projectWith } from './compilers.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/diagnostics');
const BODY_LOCAL = path.join(FIXTURES, 'undeclared-in-clause/body-local.c');
const clangInstalled = await isInstalled('clang');

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A workspace holding src/k.c, a copy of one fixture, as a build would see the project. */
function workspaceWith(fixture: string): string {
  const root = mkdtempSync(path.join(tmpdir(), 'pr-ws-'));
  scratch.push(root);
  mkdirSync(path.join(root, 'src'));
  cpSync(path.join(FIXTURES, fixture), path.join(root, 'src/k.c'));
  return root;
}

const userProject = projectWith('/home/dev/demo', ['src/main.c', 'src/k.c']);

describe.each([
  { compiler: GCC, available: true, colourFlag: '-fdiagnostics-color=always' },
  { compiler: CLANG, available: clangInstalled, colourFlag: '-fcolor-diagnostics' },
])('$compiler.family output', ({ compiler, available, colourFlag }) => {
  it.skipIf(!available)('reads coloured UTF-8 output and plain ASCII output alike', async () => {
    const plain = await compile({ compiler, source: BODY_LOCAL, cwd: FIXTURES, env: { LC_ALL: 'C', LANG: 'C' } });
    const fancy = await compile({
      compiler,
      source: BODY_LOCAL,
      cwd: FIXTURES,
      env: { LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' },
      extraFlags: [colourFlag],
    });
    expect(fancy.output).toContain('\x1b[');
    if (compiler.family === 'gcc') expect(fancy.output).toContain('‘');

    const project = projectWith(FIXTURES, ['undeclared-in-clause/body-local.c']);
    const read = (output: string) =>
      parseDiagnostics(output, project, FIXTURES).map((d) => ({ ...d, message: d.message.replace(/[‘’]/g, "'") }));
    expect(read(fancy.output)).toEqual(read(plain.output));
    expect(firstError(read(plain.output))).toMatchObject({
      file: 'undeclared-in-clause/body-local.c',
      fileId: '1',
      line: 5,
      column: 38,
      severity: 'error',
      errorClass: 'undeclared-in-clause',
    });
  });

  it.skipIf(!available)('maps absolute workspace paths to the file ids of the user project', async () => {
    const workspace = workspaceWith('early-exit/break.c');
    const { output } = await compile({ compiler, source: path.join(workspace, 'src/k.c'), cwd: tmpdir() });
    expect(firstError(parseDiagnostics(output, userProject, workspace))).toMatchObject({
      file: 'src/k.c',
      fileId: '2',
      line: 10,
      errorClass: 'early-exit',
    });
  });
});

describe('file names relative to where the compiler ran', () => {
  it('follows the directory make says it entered', async () => {
    const workspace = workspaceWith('duplicate-data-sharing/shared-and-reduction.c');
    writeFileSync(path.join(workspace, 'src/Makefile'), 'k.o: k.c\n\tgcc -fopenmp -c k.c -o k.o\n');
    const outcome = await runProcess({ command: 'make', args: ['-C', 'src'], cwd: workspace, timeoutMs: 60_000 });
    expect(outcome.kind === 'exited' && outcome.exitCode).toBe(2);
    const output = outcome.kind === 'exited' ? outcome.stdout + outcome.stderr : '';
    expect(output).toContain('Entering directory');

    const errors = parseDiagnostics(output, userProject, workspace).filter((d) => d.severity === 'error');
    expect(errors).toEqual([
      expect.objectContaining({ file: 'src/k.c', fileId: '2', line: 6, errorClass: 'duplicate-data-sharing' }),
    ]);
  });

  it('falls back to the one mapped file a bare name ends with', async () => {
    const workspace = workspaceWith('invalid-privatization/const-private.c');
    const { output } = await compile({ compiler: GCC, source: 'k.c', cwd: path.join(workspace, 'src') });
    expect(firstError(parseDiagnostics(output, userProject, workspace))).toMatchObject({
      file: 'src/k.c',
      fileId: '2',
      errorClass: 'invalid-privatization',
    });
  });

  it('leaves files outside the project unmapped', async () => {
    const { output } = await compile({ compiler: GCC, source: BODY_LOCAL, cwd: tmpdir() });
    const error = firstError(parseDiagnostics(output, userProject, '/nonexistent/workspace'));
    expect(error?.file).toBe(BODY_LOCAL);
    expect(error?.fileId).toBeUndefined();
  });
});

describe('linker output', () => {
  it('reports the undefined symbol and the driver summary as link errors', async () => {
    const { output } = await compile({ compiler: GCC, source: 'link/undefined.c', cwd: FIXTURES, link: true });
    const diagnostics = parseDiagnostics(output, projectWith(FIXTURES, ['link/undefined.c']), FIXTURES);
    expect(diagnostics.map((d) => [d.severity, d.errorClass])).toEqual([
      ['error', 'link'],
      ['error', 'link'],
    ]);
    expect(diagnostics[0]?.message).toMatch(/undefined reference to .missing_kernel'/);
    expect(diagnostics[1]).toMatchObject({ file: 'collect2', message: 'ld returned 1 exit status' });
  });
});

describe('GNU patch output', () => {
  it('classifies a hunk that does not apply', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pr-patch-'));
    scratch.push(dir);
    writeFileSync(path.join(dir, 'k.c'), 'int a;\nint b;\nint c;\n');
    writeFileSync(
      path.join(dir, 'k.patch'),
      '--- k.c\n+++ k.c.discopop_patch_generator.temp\n@@ -1,3 +1,3 @@\n int a;\n-double b;\n+#pragma omp parallel for \n int c;\n',
    );
    const outcome = await runProcess({
      command: 'patch',
      args: ['--dry-run', '--batch', path.join(dir, 'k.c'), path.join(dir, 'k.patch')],
      cwd: dir,
      timeoutMs: 30_000,
    });
    expect(outcome.kind === 'exited' && outcome.exitCode).toBe(1);
    const failure =
      outcome.kind === 'exited' ? outcome.stdout.split('\n').find((line) => line.includes('FAILED')) : undefined;
    expect(failure).toBeDefined();
    expect(classifyError(failure ?? '')).toBe('patch-does-not-apply');
  });
});

describe('classifyError', () => {
  it('accepts gcc curly quotes, ASCII quotes and leftover colour codes', () => {
    expect(classifyError('‘s’ appears more than once in data clauses')).toBe('duplicate-data-sharing');
    expect(classifyError("'s' appears more than once in data clauses")).toBe('duplicate-data-sharing');
    expect(classifyError('expected \x1b[01m\x1b[K‘#pragma omp’\x1b[m\x1b[K clause before ‘depends’')).toBe(
      'unknown-clause',
    );
  });

  it('falls back to other for problems no class describes', () => {
    expect(classifyError('expected ‘;’ before ‘}’ token')).toBe('other');
    expect(classifyError('unused variable ‘x’ [-Wunused-variable]')).toBe('other');
  });
});
