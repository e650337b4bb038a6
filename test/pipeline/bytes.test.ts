// Bytes are bytes: a Latin-1 comment (not UTF-8) and CRLF line ends, as older HPC codes carry them.
// The generated patch of such a file is made the way the generator makes it (diff -Naru of the real
// bytes); the run must see the real compile error, repair it with the built-in repairer, and write a
// patch that is diff -Naru's output byte for byte and applies with GNU patch without fuzz.
import { resultsOf } from '../../src/formats/results-document.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { checkDirectivesKept } from '../../src/patch/directives.js';
import { useFixture, type FixtureCopy } from '../helpers/fixture.js';

const CLI = path.resolve('dist/cli.js');
const DIRECTIVE = '    #pragma omp parallel for firstprivate(n) private(i) shared(sum,x) reduction(+:sum) ';

function scratch(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pr-bytes-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function run(command: string, args: string[], cwd?: string): { status: number | null; stdout: Buffer; stderr: string } {
  const result = spawnSync(command, args, { cwd, env: { ...process.env, LC_ALL: 'C' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.toString() };
}

/**
 * Rewrites src/dot.c of the demo (suggestion 2, file id 3) with `transform`, and its generated patch
 * as the generator would make it: diff -Naru of the new bytes, under the generated header lines.
 */
function variant(
  c: FixtureCopy,
  transform: (lines: Buffer[]) => Buffer[],
  eol: string,
): { original: Buffer; patchPath: string } {
  const sourcePath = path.join(c.root, 'src', 'dot.c');
  const lines = readFileSync(sourcePath)
    .toString('latin1')
    .split('\n')
    .slice(0, -1)
    .map((line) => Buffer.from(line, 'latin1'));
  const original = transform(lines);
  const forRow = original.findIndex((line) =>
    line.toString('latin1').trimStart().startsWith('for (i = 0; i < n; i++)'),
  );
  const patched = [...original.slice(0, forRow), Buffer.from(DIRECTIVE, 'latin1'), ...original.slice(forRow)];
  const join = (ls: Buffer[]) => Buffer.concat(ls.flatMap((line) => [line, Buffer.from(eol)]));
  const dir = scratch();
  writeFileSync(path.join(dir, 'a'), join(original));
  writeFileSync(path.join(dir, 'b'), join(patched));
  const diff = run('diff', ['-Naru', 'a', 'b'], dir);
  expect(diff.status).toBe(1);
  const patchPath = path.join(c.dotDir, 'patch_generator', '2', '3.patch');
  const headers = readFileSync(patchPath).toString('latin1').split('\n').slice(0, 2).join('\n');
  const body = diff.stdout.subarray(diff.stdout.indexOf('\n@@') + 1);
  writeFileSync(patchPath, Buffer.concat([Buffer.from(`${headers}\n`, 'latin1'), body]));
  writeFileSync(sourcePath, join(original));
  return { original: join(original), patchPath };
}

/** The written patch is diff -Naru of (original, what GNU patch makes of it) apart from the header's time stamps. */
function expectDiffIdentical(written: Buffer, original: Buffer): Buffer {
  const dir = scratch();
  writeFileSync(path.join(dir, 'original'), original);
  writeFileSync(path.join(dir, 'repaired'), original);
  writeFileSync(path.join(dir, 'written.patch'), written);
  const applied = run('patch', ['--batch', 'repaired', 'written.patch'], dir);
  expect(applied.status, applied.stderr).toBe(0);
  expect(applied.stdout.toString()).not.toMatch(/fuzz|offset|different line endings/i);
  const repaired = readFileSync(path.join(dir, 'repaired'));
  const diff = run('diff', ['-Naru', 'original', 'repaired'], dir);
  const body = (patch: Buffer) => patch.subarray(patch.indexOf('\n@@') + 1);
  expect(
    body(written).equals(body(diff.stdout)),
    `written:\n${written.toString('latin1')}\ndiff:\n${diff.stdout.toString('latin1')}`,
  ).toBe(true);
  return repaired;
}

function repairRun(c: FixtureCopy): {
  exitCode: number | null;
  record: { status: string; error_class: string | null; builtin: { accepted: boolean } };
} {
  const result = spawnSync(process.execPath, [
    CLI,
    '--dot-dp-path',
    c.dotDir,
    '--backend',
    'builtin',
    '-s',
    '2',
    '-j',
    '1',
  ]);
  const results = resultsOf(JSON.parse(readFileSync(path.join(c.dotDir, 'patch_repair', 'results.json'), 'utf8')));
  return { exitCode: result.status, record: results.suggestions[0]! };
}

describe('bytes that are not UTF-8', () => {
  it('a Latin-1 comment in the context: the real error is found, and the written patch is diff -Naru of the original bytes', async () => {
    const c = useFixture('demo');
    const { original, patchPath } = variant(
      c,
      (lines) => {
        const at = lines.findIndex((line) => line.toString('latin1').includes('double sum = 0.0;'));
        return [
          ...lines.slice(0, at + 1),
          Buffer.from('    /* r\xe9sum\xe9 des \xe9carts */', 'latin1'),
          ...lines.slice(at + 1),
        ];
      },
      '\n',
    );
    const generated = readFileSync(patchPath);
    const { exitCode, record } = repairRun(c);
    expect(record.error_class).toBe('duplicate-data-sharing');
    expect(record).toMatchObject({ status: 'repaired', builtin: { accepted: true } });
    expect(exitCode).toBe(0);
    const written = readFileSync(patchPath);
    expect(written.equals(generated)).toBe(false);
    expect(written.includes(Buffer.from(' /* r\xe9sum\xe9 des \xe9carts */\n', 'latin1'))).toBe(true);
    expect(written.includes(Buffer.from('\ufffd'))).toBe(false);
    const repaired = expectDiffIdentical(written, original);
    expect(repaired.toString('latin1')).toContain('shared(x) reduction(+:sum)');
    expect(readFileSync(path.join(c.dotDir, 'patch_repair', 'backups', '2', '3.patch')).equals(generated)).toBe(true);
  });
});

describe('CRLF line ends', () => {
  it('a CRLF source and generated patch: the built-in repairer repairs it and the patch keeps every CR', async () => {
    const c = useFixture('demo');
    const { original, patchPath } = variant(c, (lines) => lines, '\r\n');
    const { exitCode, record } = repairRun(c);
    expect(record).toMatchObject({
      status: 'repaired',
      error_class: 'duplicate-data-sharing',
      builtin: { accepted: true },
    });
    expect(exitCode).toBe(0);
    const written = readFileSync(patchPath);
    const repaired = expectDiffIdentical(written, original);
    const text = repaired.toString('latin1');
    expect(
      text
        .split('\n')
        .slice(0, -1)
        .every((line) => line.endsWith('\r')),
      'every line of the result still ends in CRLF',
    ).toBe(true);
    expect(text).toContain('shared(x) reduction(+:sum) \r\n');
  });

  it('the directive check reads CRLF files: a candidate without the directive is still rejected', () => {
    const crlf = (lines: string[]) => lines.map((line) => `${line}\r\n`).join('');
    const original = crlf([
      'void f(int n, double *x) {',
      '    double sum = 0.0;',
      '    for (int i = 0; i < n; i++)',
      '        sum += x[i];',
      '}',
    ]);
    const generated = crlf([
      'void f(int n, double *x) {',
      '    double sum = 0.0;',
      '    #pragma omp parallel for shared(sum,x) reduction(+:sum)',
      '    for (int i = 0; i < n; i++)',
      '        sum += x[i];',
      '}',
    ]);
    const kept = generated.replace('shared(sum,x) ', 'shared(x) ');
    const verdict = checkDirectivesKept({ original, generated, candidate: kept, fileId: '3' });
    expect(verdict).toMatchObject({
      ok: true,
      nonDirectiveLinesChanged: false,
      changes: [{ kind: 'variable-removed', variable: 'sum' }],
    });
    expect(
      checkDirectivesKept({ original, generated, candidate: original.replace('double sum', 'double  sum') }),
    ).toMatchObject({ ok: false });
  });
});
