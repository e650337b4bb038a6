// Real compilers for the diagnostics tests. clang is optional on a developer machine; CI installs it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runProcess } from '../../src/process.js';
import type { DotDiscopop, SourceFile } from '../../src/formats/types.js';

export interface Compiler {
  /** How the recordings and test titles name it: clang 14 is `clang`, the machine's default. */
  name: 'gcc' | 'clang' | 'clang-19';
  family: 'gcc' | 'clang';
  c: string;
  cxx: string;
}

export const GCC: Compiler = { name: 'gcc', family: 'gcc', c: 'gcc', cxx: 'g++' };
export const CLANG: Compiler = { name: 'clang', family: 'clang', c: 'clang', cxx: 'clang++' };
/** The LLVM DiscoPoP's master builds with by default; its wordings are clang 14's but for a few. */
export const CLANG_19: Compiler = { name: 'clang-19', family: 'clang', c: 'clang-19', cxx: 'clang++-19' };

export const CLANG_MISSING_HINT = 'clang is not installed: apt-get install -y clang libomp-dev';
export const CLANG_19_MISSING_HINT =
  'clang-19 is not installed: apt-get install -y clang-19, then scripts/install-llvm-openmp.sh 19 for its OpenMP runtime';

export async function isInstalled(command: string): Promise<boolean> {
  const outcome = await runProcess({ command, args: ['--version'], cwd: tmpdir(), timeoutMs: 20_000 });
  return outcome.kind === 'exited' && outcome.exitCode === 0;
}

export interface CompileRequest {
  compiler: Compiler;
  source: string;
  cwd: string;
  /** Link into an executable instead of stopping after the object file. */
  link?: boolean;
  env?: Record<string, string>;
  extraFlags?: string[];
}

/** Compiles one file with -fopenmp and returns what the compiler printed (stdout then stderr). */
export async function compile(request: CompileRequest): Promise<{ exitCode: number; output: string }> {
  const command = request.source.endsWith('.cpp') ? request.compiler.cxx : request.compiler.c;
  const outDir = mkdtempSync(path.join(tmpdir(), 'pr-diag-'));
  try {
    const output = path.join(outDir, request.link ? 'a.out' : 'a.o');
    const args = [
      '-fopenmp',
      ...(request.extraFlags ?? []),
      ...(request.link ? [] : ['-c']),
      request.source,
      '-o',
      output,
    ];
    const outcome = await runProcess({ command, args, cwd: request.cwd, env: request.env, timeoutMs: 60_000 });
    if (outcome.kind !== 'exited') throw new Error(`${command} did not finish: ${outcome.kind}`);
    return { exitCode: outcome.exitCode, output: outcome.stdout + outcome.stderr };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** The parts of a DotDiscopop that diagnostics parsing reads, for a project with the given files. */
export function projectWith(projectRoot: string, relPaths: string[]): DotDiscopop {
  const files = new Map<string, SourceFile>();
  relPaths.forEach((relPath, index) => {
    const id = String(index + 1);
    files.set(id, { id, relPath, path: path.join(projectRoot, relPath) });
  });
  return {
    dotDir: path.join(projectRoot, '.discopop'),
    projectRoot,
    files,
    suggestions: [],
    config: {
      name: 'tiny',
      dir: '',
      compileScript: '',
      settings: {},
      settingsSource: 'seq_settings.json (derived)',
      layout: 'per-configuration',
    },
    applied: [],
    hasHotspotData: false,
    notices: [],
  };
}

/**
 * Each source's `#pragma omp` lines, by the file id projectWith gives it: every directive in a
 * fixture stands for one the patch added, so classifyByPosition reads the output as the build stage does.
 */
export function directiveLinesOf(project: DotDiscopop): Map<string, Map<number, string>> {
  return new Map(
    [...project.files.values()].map((source) => {
      const lines = readFileSync(source.path, 'utf8').split('\n');
      return [
        source.id,
        new Map(
          lines.flatMap((line, index) => (/^\s*#\s*pragma\s+omp\b/.test(line) ? [[index + 1, line] as const] : [])),
        ),
      ];
    }),
  );
}

/**
 * The fixtures under fixtures/diagnostics/ that a compiler builds (exit 0) with -fopenmp -Wall:
 * `ignored` with only warnings that it dropped (part of) a directive, `silent`
 * without a word. Every other source fails with an error of its folder's class.
 */
export const BUILDS: Record<Compiler['family'], Record<string, 'ignored' | 'silent'>> = {
  gcc: {
    'unknown-clause/misspelt-directive.c': 'ignored',
    'unknown-clause/misspelt-directive.cpp': 'ignored',
    'other/device-type.c': 'ignored',
    'other/aligned.c': 'silent',
  },
  clang: {
    'unknown-clause/depends.c': 'ignored',
    'unknown-clause/depends.cpp': 'ignored',
    'unknown-clause/continuation.c': 'ignored',
    'unknown-clause/arguments.c': 'ignored',
    'other/aligned.c': 'ignored',
    'other/declare-variant.c': 'ignored',
    'undeclared-in-clause/member-reduction.cpp': 'silent',
    'invalid-reduction/complex.cpp': 'silent',
    // clang collapses outer and inner indices of different types; gcc rejects them.
    'collapse-not-nested/mixed-index-types.c': 'silent',
  },
};
