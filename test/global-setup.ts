// The suite builds with real clang (DiscoPoP's default compiler) and real CMake/Ninja, which a
// fresh machine lacks. As root, install Debian's packages once before any test runs, so the
// README's `npm test` passes on a fresh clone; otherwise say what to install, since the tests
// that need them cannot pass without.
import { execFileSync, spawnSync } from 'node:child_process';

const TOOLS: ReadonlyArray<{ command: string; args: string[]; packages: string[] }> = [
  { command: 'clang', args: ['--version'], packages: ['clang', 'libomp-dev'] },
  { command: 'cmake', args: ['--version'], packages: ['cmake'] },
  { command: 'ninja', args: ['--version'], packages: ['ninja-build'] },
];

function works(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}

// clang without libomp-dev runs, but cannot compile OpenMP.
function clangHasOpenMP(): boolean {
  return (
    spawnSync('clang', ['-fopenmp', '-x', 'c', '-', '-o', '/dev/null'], {
      input: '#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n',
      stdio: ['pipe', 'ignore', 'ignore'],
    }).status === 0
  );
}

export default function setup(): void {
  const missing = new Set(TOOLS.filter((tool) => !works(tool.command, tool.args)).flatMap((tool) => tool.packages));
  if (!missing.has('clang') && !clangHasOpenMP()) missing.add('libomp-dev');
  if (missing.size === 0) return;
  const packages = [...missing];
  if (process.getuid?.() !== 0) {
    console.warn(
      `tests that build with clang or CMake need Debian's packages: sudo apt-get install -y ${packages.join(' ')}`,
    );
    return;
  }
  console.warn(`installing Debian's ${packages.join(', ')} for the clang and CMake tests (apt-get, once)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { stdio: 'inherit', env });
}
