// A small real C project with a .discopop folder whose one suggestion (id 1) adds a reduction
// directive naming a variable that does not exist — the classic DiscoPoP failure. Builds use the
// real BuildPool (gcc -fopenmp), so every check runs against the real tools.
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile, chmod } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readDotDiscopop } from '../../src/discopop/index.js';
import { BuildPool } from '../../src/build/index.js';
import { applyFilePatch, parsePatches } from '../../src/patch/index.js';
import type { RepairTask } from '../../src/formats/task.js';
import type { RunOptions } from '../../src/formats/run-options.js';
import type { EventInput } from '../../src/formats/events.js';
import type { DotDiscopop } from '../../src/formats/types.js';

export const MAIN_C = `#include <stdio.h>
#define N 1000
double a[N], b[N];
int main(void) {
    int i;
    double sum = 0.0;
    for (i = 0; i < N; i++) {
        a[i] = i * 0.5;
        b[i] = i * 2.0;
    }
    for (i = 0; i < N; i++) {
        sum += a[i] * b[i];
    }
    printf("%f\\n", sum);
    return 0;
}
`;

/** What DiscoPoP's generator wrote: `tmp_var37` is an LLVM temporary, not a source variable. */
export const GENERATED_PATCH = `--- <root>/src/main.c\t2026-11-30 14:20:37.315505892 +0000
+++ <root>/src/main.c.discopop_patch_generator.temp\t2026-11-30 14:20:38.094634531 +0000
@@ -8,6 +8,7 @@
         a[i] = i * 0.5;
         b[i] = i * 2.0;
     }
+    #pragma omp parallel for private(i) shared(a,b,tmp_var37) reduction(+:sum) 
     for (i = 0; i < N; i++) {
         sum += a[i] * b[i];
     }
`;

export interface TestProject {
  root: string;
  dot: string;
  scratch: string;
  dp: DotDiscopop;
  pool: BuildPool;
  task: RepairTask;
  events: EventInput[];
  emit: (event: EventInput) => void;
  /** Every file under patch_generator/ with its bytes, to prove nothing was written there. */
  generatorSnapshot(): Promise<Record<string, string>>;
  dispose(): Promise<void>;
}

/** The project's `src/main.c` and the generated patch (`<root>` stands for the project root); the reduction example unless given. */
export interface TestProjectFiles {
  source: string;
  generatedPatch: string;
}

export async function createTestProject(
  o: TestProjectFiles = { source: MAIN_C, generatedPatch: GENERATED_PATCH },
): Promise<TestProject> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'pr-repair-'));
  const dot = path.join(root, '.discopop');
  const scratch = path.join(root, 'scratch');
  const files: Record<string, string> = {
    'src/main.c': o.source,
    '.discopop/FileMapping.txt': `1\t${root}/src/main.c\n`,
    '.discopop/patch_generator/1/1.patch': o.generatedPatch.replaceAll('<root>', root),
    '.discopop/project/configs/tiny/compile.sh': '#!/bin/sh\n$CC $CFLAGS -o demo "$DP_PROJECT_ROOT_DIR/src/main.c"\n',
    '.discopop/project/configs/tiny/seq_settings.json': '{"CC": "gcc", "CXX": "g++", "CFLAGS": "-O0", "CXXFLAGS": ""}',
  };
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), content);
  }
  await chmod(path.join(dot, 'project/configs/tiny/compile.sh'), 0o755);
  await mkdir(scratch, { recursive: true });

  const { dp, pool, task, events, emit } = await openFailingTask(
    dot,
    scratch,
    'the test project was meant to fail with its generated patch',
  );

  return {
    root,
    dot,
    scratch,
    dp,
    pool,
    task,
    events,
    emit,
    async generatorSnapshot() {
      const dir = path.join(dot, 'patch_generator');
      const snapshot: Record<string, string> = {};
      for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
        if (entry.isFile()) {
          const file = path.join(entry.parentPath, entry.name);
          snapshot[path.relative(dir, file)] = await readFile(file, 'utf8');
        }
      }
      return snapshot;
    },
    async dispose() {
      await pool.dispose();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/**
 * The one suggestion of a test .discopop folder as the repair stage gets it: read, patched in
 * memory, and built by a real pool, whose discovery build must fail (`failure` says why it should).
 */
export async function openFailingTask(dot: string, scratch: string, failure: string) {
  const dp = await readDotDiscopop(dot, 'tiny');
  const events: EventInput[] = [];
  const emit = (event: EventInput) => void events.push(event);
  const pool = await BuildPool.create({
    dp,
    scratchDir: scratch,
    jobs: 1,
    threads: 1,
    timeoutMs: 120_000,
    signal: new AbortController().signal,
    emit,
  });
  const suggestion = dp.suggestions[0]!;
  const generated = new Map(suggestion.files.map((f) => [f.fileId, f.text]));
  const sources = new Map<string, string>();
  const patched = new Map<string, string>();
  for (const file of suggestion.files) {
    const source = await readFile(file.source.path, 'utf8');
    sources.set(file.fileId, source);
    patched.set(file.fileId, applyFilePatch(source, parsePatches(file.text).patches[0]!).result!);
  }
  const build = await pool.build(suggestion.id, generated, 'discovery');
  if (build.ok) {
    await pool.dispose();
    throw new Error(failure);
  }
  const task: RepairTask = { suggestion, sources, generated, patched, build };
  return { dp, pool, task, events, emit };
}

export function testOptions(
  overrides: Partial<Omit<RunOptions, 'agent'>> & { agent?: Partial<RunOptions['agent']> } = {},
): RunOptions {
  const { agent, ...rest } = overrides;
  return {
    mode: 'dry-run',
    dotDir: '.discopop',
    config: 'tiny',
    hotspotTypes: ['YES', 'MAYBE'],
    threads: 1,
    jobs: 1,
    workDir: os.tmpdir(),
    exclude: [],
    maxRepairs: 0,
    agentJobs: 1,
    resume: false,
    strict: false,
    checkRun: 'off',
    checkRaces: 'off',
    runThreads: 2,
    runRepeats: 3,
    runTolerance: 1e-6,
    builtin: false,
    agent: { agentTimeoutS: 30, prompts: 2, retries: 2, maxAttempts: 6, agentErrorRetries: 2, ...agent },
    llmConfigPath: '/nonexistent/llm_config.json',
    contextLines: 60,
    maxErrorChars: 8000,
    maxPromptChars: 60000,
    log: 'WARNING',
    writeLog: false,
    progressLines: false,
    buildTimeoutS: 120,
    launcher: 'local',
    launcherArgs: [],
    ...rest,
  };
}

/** A repair of the generated patch as a model would write it: against the original source. */
export function answerDiff(root: string, directive: string, o: { at?: number; extraLines?: string[] } = {}): string {
  const at = o.at ?? 8;
  return [
    'Here is the corrected patch:',
    '',
    '```diff',
    `--- ${root}/src/main.c`,
    `+++ ${root}/src/main.c`,
    `@@ -${at},6 +${at},7 @@`,
    '         a[i] = i * 0.5;',
    '         b[i] = i * 2.0;',
    '     }',
    `+${directive}`,
    '     for (i = 0; i < N; i++) {',
    '         sum += a[i] * b[i];',
    '     }',
    ...(o.extraLines ?? []),
    '```',
    '',
  ].join('\n');
}

export const GOOD_DIRECTIVE = '    #pragma omp parallel for private(i) shared(a,b) reduction(+:sum) ';
