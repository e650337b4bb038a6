// Reading gcc's own output: paths as compile.sh prints them, curly quotes under a UTF-8 locale,
// and the cases where the built-in repairer must decline before any rule runs.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinRepair } from '../../src/builtin/index.js';
import { readCompilerMessages } from '../../src/builtin/compiler-messages.js';
import { runProcess } from '../../src/process.js';
import type { BuildResult, Suggestion } from '../../src/formats/types.js';

const SOURCE = `void fill(int n, double *v)
{
    #pragma omp parallel for private(tmp) shared(v) 
    for (int i = 0; i < n; i++) {
        double tmp = i * 0.5;
        v[i] = tmp;
    }
}
`;

function suggestionFor(relPaths: string[]): Suggestion {
  return {
    id: '7',
    dir: '/p/.discopop/patch_generator/7',
    files: relPaths.map((relPath, index) => ({
      fileId: String(index + 1),
      patchPath: `/p/.discopop/patch_generator/7/${index + 1}.patch`,
      text: '',
      source: { id: String(index + 1), path: `/p/${relPath}`, relPath },
    })),
    pattern: null,
    hotspot: null,
  };
}

function failedBuild(output: string, extra: Partial<BuildResult> = {}): BuildResult {
  return { ok: false, failedAt: 'compile', output, diagnostics: [], durationMs: 1, ...extra };
}

let scratch = '';
let utf8Output = '';

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'builtin-messages-'));
  await mkdir(join(scratch, 'src'), { recursive: true });
  await writeFile(join(scratch, 'src', 'fill.c'), SOURCE);
  // compile.sh often changes into the source folder, so gcc names the file without its folder.
  const outcome = await runProcess({
    command: 'gcc', args: ['-fopenmp', '-c', 'fill.c', '-o', '/dev/null'], cwd: join(scratch, 'src'),
    env: { LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' },
  });
  if (outcome.kind !== 'exited') throw new Error('gcc did not run');
  utf8Output = outcome.stdout + outcome.stderr;
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('readCompilerMessages', () => {
  it('ties gcc messages to the suggestion file and reads curly-quoted names', () => {
    const messages = readCompilerMessages(failedBuild(utf8Output), suggestionFor(['src/fill.c']));
    expect(messages[0]).toMatchObject({ fileId: '1', line: 3, severity: 'error', text: "'tmp' undeclared (first use in this function)" });
  });

  it('matches workspace-absolute and root-relative paths, and no ambiguous short name', () => {
    const suggestion = suggestionFor(['src/a/k.c', 'src/b/k.c']);
    const output = "/tmp/ws/src/a/k.c:3:5: error: 'x' undeclared (first use in this function)\nk.c:4:1: error: 'y' undeclared (first use in this function)\nsrc/b/k.c:9:2: error: 'z' undeclared (first use in this function)\n";
    const messages = readCompilerMessages(failedBuild(output), suggestion);
    expect(messages.map((message) => [message.fileId, message.line])).toEqual([['1', 3], ['2', 9]]);
  });

  it('falls back to parsed diagnostics when the output holds no message line', () => {
    const build = failedBuild('compile.sh failed', {
      diagnostics: [{ file: 'src/fill.c', fileId: '1', line: 3, column: 38, severity: 'error', message: "'tmp' undeclared", errorClass: 'undeclared-in-clause' }],
    });
    expect(readCompilerMessages(build, suggestionFor(['src/fill.c']))).toEqual([
      { fileId: '1', line: 3, column: 38, severity: 'error', text: "'tmp' undeclared" },
    ]);
  });
});

describe('builtinRepair declines before any rule when', () => {
  const task = (build: BuildResult, relPath = 'src/fill.c') => ({
    suggestion: suggestionFor([relPath]),
    sources: new Map([['1', SOURCE]]),
    generated: new Map([['1', '']]),
    patched: new Map([['1', SOURCE]]),
    build,
  });

  it('the generated patch did not apply', async () => {
    const result = await builtinRepair(task(failedBuild('1 out of 1 hunk FAILED -- saving rejects to file src/fill.c.rej', { failedAt: 'patch' })));
    expect(result).toMatchObject({ kind: 'declined' });
    expect(result.kind === 'declined' && result.reason).toContain('does not apply');
  });

  it('an error is in a file outside the suggestion', async () => {
    const result = await builtinRepair(task(failedBuild("src/other.c:2:1: error: expected ';' before '}' token\n")));
    expect(result.kind === 'declined' && result.reason).toContain('src/other.c:2:1');
  });

  it('the build failed without any compiler error (a link error)', async () => {
    const result = await builtinRepair(task(failedBuild("/usr/bin/ld: fill.o: in function `main':\nfill.c:(.text+0x1a): undefined reference to `omp_get_wtime'\n", { firstError: "undefined reference to `omp_get_wtime'" })));
    expect(result.kind === 'declined' && result.reason).toContain('no compiler error');
  });
});
