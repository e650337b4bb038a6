// A suggestion whose patch set spans two files (as optimizer outputs do): the answer holds a
// block only for the file that needed a repair, under that file's own generated headers.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { builtinRepair } from '../../src/builtin/index.js';
import { parseDiagnostics } from '../../src/build/diagnostics.js';
import { runProcess } from '../../src/process.js';
import type { Suggestion } from '../../src/formats/types.js';
import { projectWith } from '../diagnostics/compilers.js';

const FILES = {
  'src/init.c': {
    original: 'void init(int n, double *v)\n{\n    for (int i = 0; i < n; i++)\n        v[i] = 1.0;\n}\n',
    directive: { beforeLine: 3, text: '    #pragma omp parallel for shared(v) ' },
  },
  'src/update.c': {
    original:
      'void update(int n, double *v)\n{\n    for (int i = 0; i < n; i++) {\n        double t = v[i] * 2.0;\n        v[i] = t;\n    }\n}\n',
    directive: { beforeLine: 3, text: '    #pragma omp parallel for private(t) shared(v) ' },
  },
};

let scratch = '';
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function run(command: string, args: string[], cwd: string) {
  const outcome = await runProcess({ command, args, cwd, env: { LC_ALL: 'C' } });
  if (outcome.kind !== 'exited') throw new Error(`${command} did not run`);
  return outcome;
}

it('repairs only the file with the error and leaves the other file to its generated patch', async () => {
  scratch = await mkdtemp(join(tmpdir(), 'builtin-multi-'));
  const suggestion: Suggestion = {
    id: '4',
    dir: join(scratch, 'patch_generator', '4'),
    files: [],
    pattern: null,
    hotspot: null,
  };
  const sources = new Map<string, string>();
  const generated = new Map<string, string>();
  const patched = new Map<string, string>();
  let output = '';
  for (const [index, [relPath, file]] of Object.entries(FILES).entries()) {
    const fileId = String(index + 1);
    const path = join(scratch, 'project', relPath);
    await mkdir(join(scratch, 'project', 'src'), { recursive: true });
    await writeFile(path, file.original);
    const lines = file.original.split('\n');
    lines.splice(file.directive.beforeLine - 1, 0, file.directive.text);
    await writeFile(`${path}.discopop_patch_generator.temp`, lines.join('\n'));
    const diff = await run('diff', ['-Naru', path, `${path}.discopop_patch_generator.temp`], scratch);
    sources.set(fileId, file.original);
    generated.set(fileId, diff.stdout);
    patched.set(fileId, lines.join('\n'));
    suggestion.files.push({
      fileId,
      patchPath: join(suggestion.dir, `${fileId}.patch`),
      text: diff.stdout,
      source: { id: fileId, path, relPath },
    });
    await writeFile(`${path}.build.c`, lines.join('\n'));
    const compiled = await run(
      'gcc',
      ['-fopenmp', '-c', `${relPath}.build.c`, '-o', '/dev/null'],
      join(scratch, 'project'),
    );
    output += (compiled.stdout + compiled.stderr).replaceAll(`${relPath}.build.c`, relPath);
  }

  const diagnostics = parseDiagnostics(
    output,
    projectWith(join(scratch, 'project'), Object.keys(FILES)),
    join(scratch, 'project'),
  );
  const result = await builtinRepair({
    suggestion,
    sources,
    generated,
    patched,
    build: { ok: false, failedAt: 'compile', output, diagnostics, durationMs: 1 },
  });

  expect(result).toMatchObject({ kind: 'answer', rules: ['drop-out-of-scope-names'] });
  const blocks = [...(result.kind === 'answer' ? result.text : '').matchAll(/```diff\n([\s\S]*?)```/g)].map(
    (match) => match[1]!,
  );
  expect(blocks).toHaveLength(1);
  expect(blocks[0]!.split('\n').slice(0, 2)).toEqual(generated.get('2')!.split('\n').slice(0, 2));
  const target = join(scratch, 'project', 'src', 'update.c');
  await writeFile(join(scratch, 'answer.patch'), blocks[0]!);
  expect((await run('patch', ['--batch', target, join(scratch, 'answer.patch')], scratch)).exitCode).toBe(0);
  expect(await readFile(target, 'utf8')).toContain(
    '    #pragma omp parallel for shared(v) \n    for (int i = 0; i < n; i++) {',
  );
  expect(
    (await run('gcc', ['-fopenmp', '-c', 'src/update.c', '-o', '/dev/null'], join(scratch, 'project'))).exitCode,
  ).toBe(0);
});
