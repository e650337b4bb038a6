// A small real C project with a .discopop folder, for build tests: three translation units, one
// header, a Makefile without header dependencies (as many real ones are), compile.sh as DiscoPoP's
// project manager runs it, and patches made by real `diff -Naru` in the patch generator's form.
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { BuildPool } from '../../src/build/pool.js';
import { runProcess } from '../../src/process.js';
import type { Emit, RunEvent } from '../../src/formats/events.js';
import type { DotDiscopop, PatchSet, SourceFile, Suggestion } from '../../src/formats/types.js';

export const SOURCES: Record<string, string> = {
  'src/common.h':
    '#ifndef COMMON_H\n#define COMMON_H\n#define N 64\nvoid fill_a(double *x);\nvoid fill_b(double *x);\n#endif\n',
  'src/a.c':
    '#include "common.h"\nconst char *a_mark = "a-original";\nvoid fill_a(double *x) {\n    int i;\n    for (i = 0; i < N; i++) {\n        double t = i * 0.5;\n        x[i] = t;\n    }\n}\n',
  'src/b.c':
    '#include "common.h"\n#include "scale.c"\nvoid fill_b(double *x) {\n    int i;\n    for (i = 0; i < N; i++) {\n        x[i] = scale(i);\n    }\n}\n',
  // Included by b.c, not compiled on its own: a .c file that is not a translation unit.
  'src/scale.c': 'static double scale(int i) {\n    return i * 2.0;\n}\n',
  'src/main.c':
    '#include <stdio.h>\n#include "common.h"\nextern const char *a_mark;\nint main(void) {\n    double x[N];\n    fill_a(x);\n    fill_b(x);\n    printf("mark=%s\\n", a_mark);\n    return 0;\n}\n',
  Makefile:
    'OBJS = src/main.o src/a.o src/b.o\nprog: $(OBJS)\n\t$(CC) $(CFLAGS) -o $@ $(OBJS)\nsrc/%.o: src/%.c\n\t$(CC) $(CFLAGS) -c -o $@ $<\n',
};

const FILE_IDS: Record<string, string> = {
  'src/main.c': '1',
  'src/a.c': '2',
  'src/b.c': '3',
  'src/common.h': '4',
  'src/scale.c': '5',
};

/** compile.sh: make in the copy, then run the program so a test can see what was linked. */
export const DEFAULT_COMPILE =
  '#!/bin/sh\ncd "$DP_PROJECT_ROOT_DIR" || exit 1\nmake CC="$CC" CFLAGS="$CFLAGS" && ./prog\n';

export interface PoolOptions {
  jobs?: number;
  threads?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  exclude?: string[];
}

/**
 * For a test file: `start(project)` makes a BuildPool over the project (one job, one thread, 60 s
 * by default); after each test the pool is disposed and the project removed, also when `start`
 * threw.
 */
export function poolPerTest(): (project: TestProject, o?: PoolOptions) => Promise<BuildPool> {
  let project: TestProject | undefined;
  let pool: BuildPool | undefined;
  afterEach(async () => {
    await pool?.dispose();
    await project?.remove();
    pool = project = undefined;
  });
  return async (p, o = {}) => {
    project = p;
    pool = await BuildPool.create({
      dp: p.dp,
      scratchDir: p.scratch,
      jobs: o.jobs ?? 1,
      threads: o.threads ?? 1,
      timeoutMs: o.timeoutMs ?? 60_000,
      signal: o.signal ?? new AbortController().signal,
      emit: p.emit,
      ...(o.exclude && { exclude: o.exclude }),
    });
    return pool;
  };
}

export interface TestProject {
  root: string;
  dp: DotDiscopop;
  scratch: string;
  events: RunEvent[];
  emit: Emit;
  remove(): Promise<void>;
}

export async function makeProject(
  o: { compileSh?: string; settings?: Record<string, string> } = {},
): Promise<TestProject> {
  const base = await mkdtemp(join(tmpdir(), 'pr-build-'));
  const root = join(base, 'project');
  const scratch = join(base, 'scratch');
  for (const [rel, text] of Object.entries(SOURCES)) await writeText(join(root, rel), text);
  const dotDir = join(root, '.discopop');
  const configDir = join(dotDir, 'project', 'configs', 'default');
  const compileScript = join(configDir, 'compile.sh');
  await writeText(compileScript, o.compileSh ?? DEFAULT_COMPILE);
  await chmod(compileScript, 0o755);
  const settings = o.settings ?? { CC: 'gcc', CXX: 'g++', CFLAGS: '-O0 -fopenmp', CXXFLAGS: '-O0 -fopenmp' };
  await writeText(join(configDir, 'par_settings.json'), JSON.stringify(settings));
  const files = new Map<string, SourceFile>();
  for (const [rel, id] of Object.entries(FILE_IDS)) files.set(id, { id, path: join(root, rel), relPath: rel });
  await writeText(join(dotDir, 'FileMapping.txt'), [...files.values()].map((f) => `${f.id}\t${f.path}\n`).join(''));
  await mkdir(join(dotDir, 'patch_repair'), { recursive: true });
  await writeText(join(dotDir, 'patch_repair', 'results.json'), '{}');
  const dp: DotDiscopop = {
    dotDir,
    projectRoot: root,
    files,
    suggestions: [],
    config: {
      name: 'default',
      dir: configDir,
      compileScript,
      settings,
      settingsSource: 'par_settings.json',
      layout: 'per-configuration',
    },
    applied: [],
    hasHotspotData: false,
    notices: [],
  };
  const events: RunEvent[] = [];
  return {
    root,
    dp,
    scratch,
    events,
    emit: (event) => events.push({ ...event, t: new Date().toISOString() } as RunEvent),
    remove: () => rm(base, { recursive: true, force: true }),
  };
}

/** A patch of `rel` in the generator's form: `diff -Naru <abs> <abs>.discopop_patch_generator.temp`. */
export async function generatorPatch(
  project: TestProject,
  rel: string,
  edit: (text: string) => string,
): Promise<string> {
  const original = join(project.root, rel);
  const temp = `${original}.discopop_patch_generator.temp`;
  await writeFile(temp, edit(await readFile(original, 'utf8')));
  const outcome = await runProcess({ command: 'diff', args: ['-Naru', original, temp], cwd: project.dp.dotDir });
  await rm(temp);
  if (outcome.kind !== 'exited' || outcome.exitCode !== 1) throw new Error(`diff -Naru failed for ${rel}`);
  return outcome.stdout;
}

/** Inserts `line` (indented like its neighbour) before the first line containing `before`. */
export function insertBefore(before: string, line: string): (text: string) => string {
  return (text) => {
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.includes(before));
    if (at < 0) throw new Error(`no line containing ${before}`);
    const indent = /^\s*/.exec(lines[at] as string)?.[0] ?? '';
    lines.splice(at, 0, indent + line);
    return lines.join('\n');
  };
}

export function fileId(rel: string): string {
  return FILE_IDS[rel] as string;
}

export function suggestion(project: TestProject, id: string, patches: Record<string, string>): Suggestion {
  const dir = join(project.dp.dotDir, 'patch_generator', id);
  return {
    id,
    dir,
    files: Object.entries(patches).map(([rel, text]) => ({
      fileId: fileId(rel),
      patchPath: join(dir, `${fileId(rel)}.patch`),
      text,
      source: project.dp.files.get(fileId(rel)) as SourceFile,
    })),
    pattern: null,
    hotspot: 'YES',
  };
}

export function patchSetOf(patches: Record<string, string>): PatchSet {
  return new Map(Object.entries(patches).map(([rel, text]) => [fileId(rel), text]));
}

/** Every file under `root` with its bytes' digest and modification time. */
export async function fingerprint(root: string): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const abs = join(dir, entry.name);
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(abs, relPath);
      else {
        const digest = createHash('sha256')
          .update(await readFile(abs))
          .digest('hex');
        result.set(relPath, `${digest} ${(await stat(abs, { bigint: true })).mtimeNs}`);
      }
    }
  };
  await walk(root, '');
  return result;
}

async function writeText(path: string, text: string): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, text);
}
