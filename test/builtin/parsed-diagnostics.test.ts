// The built-in repairer reads the build stage's parsed diagnostics, nothing else: gcc's curly
// quotes under a UTF-8 locale, clang's wording and compile.sh's choice of directory all reach it
// through parseDiagnostics, and it declines before any rule when the errors are not its to fix.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinRepair } from '../../src/builtin/index.js';
import { parseDiagnostics } from '../../src/build/diagnostics.js';
import { runProcess } from '../../src/process.js';
import type { BuildResult, Suggestion } from '../../src/formats/types.js';
import { projectWith } from '../diagnostics/compilers.js';

const SOURCE = `void fill(int n, double *v)
{
    #pragma omp parallel for private(tmp) shared(v) 
    for (int i = 0; i < n; i++) {
        double tmp = i * 0.5;
        v[i] = tmp;
    }
}
`;
const ORIGINAL = SOURCE.replace(/^ *#pragma.*\n/m, '');
const GENERATED = `--- /p/src/fill.c\n+++ /p/src/fill.c.discopop_patch_generator.temp\n@@ -1,5 +1,6 @@\n void fill(int n, double *v)\n {\n+    #pragma omp parallel for private(tmp) shared(v) \n     for (int i = 0; i < n; i++) {\n         double tmp = i * 0.5;\n         v[i] = tmp;\n`;

function suggestionFor(relPaths: string[]): Suggestion {
  return {
    id: '7',
    dir: '/p/.discopop/patch_generator/7',
    files: relPaths.map((relPath, index) => ({
      fileId: String(index + 1),
      patchPath: `/p/.discopop/patch_generator/7/${index + 1}.patch`,
      text: GENERATED,
      source: { id: String(index + 1), path: `/p/${relPath}`, relPath },
    })),
    pattern: null,
    hotspot: null,
  };
}

/** A failed build as the build stage makes it: output parsed against the project's files. */
function failedBuild(output: string, relPaths: string[], extra: Partial<BuildResult> = {}): BuildResult {
  const diagnostics = parseDiagnostics(output, projectWith('/p', relPaths), '/tmp/ws');
  return { ok: false, failedAt: 'compile', output, diagnostics, durationMs: 1, ...extra };
}

function task(build: BuildResult, relPaths = ['src/fill.c']) {
  return {
    suggestion: suggestionFor(relPaths),
    sources: new Map([['1', ORIGINAL]]),
    generated: new Map([['1', GENERATED]]),
    patched: new Map([['1', SOURCE]]),
    build,
  };
}

let scratch = '';
const outputs: Record<string, string> = {};

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'builtin-parsed-'));
  await mkdir(join(scratch, 'src'), { recursive: true });
  await writeFile(join(scratch, 'src', 'fill.c'), SOURCE);
  // compile.sh often changes into the source folder, so the compiler names the file without its folder.
  for (const compiler of ['gcc', 'clang']) {
    const outcome = await runProcess({
      command: compiler,
      args: ['-fopenmp', '-c', 'fill.c', '-o', '/dev/null'],
      cwd: join(scratch, 'src'),
      env: { LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' },
    });
    if (outcome.kind !== 'exited') throw new Error(`${compiler} did not run`);
    outputs[compiler] = outcome.stdout + outcome.stderr;
  }
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the same repair from either compiler', () => {
  it.each(['gcc', 'clang'])(
    '%s: the curly-quoted or plain message reaches the rules and the name is dropped',
    async (compiler) => {
      if (compiler === 'gcc') expect(outputs.gcc).toContain('‘tmp’');
      const build = failedBuild(outputs[compiler]!, ['src/fill.c']);
      expect(build.diagnostics[0]).toMatchObject({
        fileId: '1',
        line: 3,
        severity: 'error',
        errorClass: 'undeclared-in-clause',
      });
      const result = await builtinRepair(task(build));
      expect(result).toMatchObject({ kind: 'answer', rules: ['drop-out-of-scope-names'] });
      expect(result.kind === 'answer' && result.text).toContain('+    #pragma omp parallel for shared(v)');
    },
  );
});

describe('builtinRepair declines before any rule when', () => {
  it('the generated patch did not apply', async () => {
    const result = await builtinRepair(
      task(
        failedBuild('1 out of 1 hunk FAILED -- saving rejects to file src/fill.c.rej', ['src/fill.c'], {
          failedAt: 'patch',
        }),
      ),
    );
    expect(result).toMatchObject({ kind: 'declined' });
    expect(result.kind === 'declined' && result.reason).toContain('does not apply');
  });

  it('an error is in a file outside the suggestion', async () => {
    const result = await builtinRepair(
      task(failedBuild("src/other.c:2:1: error: expected ';' before '}' token\n", ['src/fill.c', 'src/other.c'])),
    );
    expect(result.kind === 'declined' && result.reason).toContain('src/other.c:2:1');
  });

  it('the build failed at the link step', async () => {
    const result = await builtinRepair(
      task(
        failedBuild(
          "/usr/bin/ld: fill.o: in function `main':\nfill.c:(.text+0x1a): undefined reference to `omp_get_wtime'\ncollect2: error: ld returned 1 exit status\n",
          ['src/fill.c'],
        ),
      ),
    );
    expect(result.kind === 'declined' && result.reason).toContain(
      'the build failed at the link step (undefined reference to `omp_get_wtime',
    );
  });

  it('no diagnostic could be parsed from the output', async () => {
    const result = await builtinRepair(
      task(
        failedBuild('compile.sh: make: *** [all] Killed\n', ['src/fill.c'], { firstError: 'make: *** [all] Killed' }),
      ),
    );
    expect(result.kind === 'declined' && result.reason).toContain('no compiler error');
  });
});
