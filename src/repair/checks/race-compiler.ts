// The clang of --check-races' build. DiscoPoP's master builds with LLVM 19 to 22 and Debian's
// default clang is 14, so the race build takes the clang the run resolves: --race-cc, else the
// project's own compiler when it is clang, else the newest `clang-N` on PATH that links a program
// with -fopenmp -fsanitize=thread (a bare `clang` last). A refusal names that version's packages.
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { openMPProgramProblem, versionedNewestFirst } from '../../build/bare-clang.js';
import { executablesOnPath, findExecutable, runProcess } from '../../process.js';

export interface RaceCompiler {
  cc: string;
  cxx: string;
  /** clang's major version; null when neither its name nor `--version` tells it. */
  version: number | null;
  chosen:
    '--race-cc' | "the project's compiler" | 'the newest clang-N on PATH that links with ThreadSanitizer' | 'clang';
  /**
   * `-Wl,-rpath,<dir>` when this clang's libomp is not the system's: Debian's libomp.so.5 is
   * clang 14's, and a clang-19 program loading it finds no libarcher.so (no Archer, false races).
   */
  rpath: string | null;
  /** llvm-symbolizer for TSan's stacks: clang-N's own runtime finds none without it. */
  symbolizer: string | null;
  /** It compiled and linked a small OpenMP program with -fopenmp -fsanitize=thread. */
  links: boolean;
}

/** The version DiscoPoP's master builds with by default: what a refusal names when no clang answers. */
const DISCOPOP_LLVM = 19;

/** The Debian packages a race build with clang `version` needs. */
export function racePackages(version: number | null): string {
  const n = version ?? DISCOPOP_LLVM;
  return `clang-${n} libclang-rt-${n}-dev libomp-${n}-dev`;
}

export async function resolveRaceCompiler(o: {
  settings: Readonly<Record<string, string>>;
  /** Where compilers are found when the settings name no PATH of their own. */
  searchPath: string;
  raceCc?: string;
}): Promise<RaceCompiler> {
  const searchPath = o.settings['PATH'] ?? o.searchPath;
  if (o.raceCc !== undefined) return describe(o.raceCc, cxxBeside(o.raceCc), '--race-cc', searchPath);
  const own = o.settings['CC']?.trim().split(/\s+/)[0];
  if (own !== undefined && /^clang(-\d+)?$/.test(basename(own))) {
    const ownCxx = o.settings['CXX']?.trim().split(/\s+/)[0];
    const cxx = ownCxx !== undefined && /^clang\+\+(-\d+)?$/.test(basename(ownCxx)) ? ownCxx : cxxBeside(own);
    return describe(own, cxx, "the project's compiler", searchPath);
  }
  const onPath = await executablesOnPath(searchPath, (name) => /^clang(-\d+)?$/.test(name));
  const candidates = [...versionedNewestFirst('clang', onPath.keys()), ...(onPath.has('clang') ? ['clang'] : [])];
  const described = [];
  for (const cc of candidates) {
    const compiler = await describe(
      cc,
      cxxBeside(cc),
      'the newest clang-N on PATH that links with ThreadSanitizer',
      searchPath,
    );
    if (compiler.links) return compiler;
    described.push(compiler);
  }
  // None links: the newest is built with anyway, so the reference's refusal names its packages.
  return described[0] ?? describe('clang', 'clang++', 'clang', searchPath);
}

/** `clang-19` → `clang++-19`, `/opt/llvm/bin/clang` → `/opt/llvm/bin/clang++`. */
function cxxBeside(cc: string): string {
  const name = basename(cc).replace(/^clang/, 'clang++');
  return cc.includes('/') ? join(dirname(cc), name) : name;
}

async function describe(
  cc: string,
  cxx: string,
  chosen: RaceCompiler['chosen'],
  searchPath: string,
): Promise<RaceCompiler> {
  const env = { PATH: searchPath };
  const ask = async (args: string[]) => {
    const run = await runProcess({ command: cc, args, cwd: tmpdir(), env, timeoutMs: 30_000 });
    return run.kind === 'exited' && run.exitCode === 0 ? run.stdout.trim() : null;
  };
  const named = /-(\d+)$/.exec(basename(cc));
  const reported = named ? null : /clang version (\d+)\./.exec((await ask(['--version'])) ?? '');
  const version = named ? Number(named[1]) : reported ? Number(reported[1]) : null;
  const libomp = await ask(['-print-file-name=libomp.so']);
  const rpath = libomp !== null && isAbsolute(libomp) ? `-Wl,-rpath,${dirname(libomp)}` : null;
  let symbolizer: string | null = null;
  for (const candidate of [
    ...(version !== null ? [`/usr/lib/llvm-${version}/bin/llvm-symbolizer`, `llvm-symbolizer-${version}`] : []),
    'llvm-symbolizer',
  ]) {
    symbolizer = await findExecutable(candidate, searchPath);
    if (symbolizer !== null) break;
  }
  const found = { cc, cxx, version, chosen, rpath, symbolizer };
  const flags = ['-fsanitize=thread', ...(rpath ? [rpath] : [])];
  return { ...found, links: (await openMPProgramProblem(cc, searchPath, { flags, run: false })) === null };
}
