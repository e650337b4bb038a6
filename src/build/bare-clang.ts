// A bare `clang`/`clang++` in the settings that is not on PATH stands for the newest versioned
// one that is and that can build and link an OpenMP program, as DiscoPoP's project manager has it:
// Debian's clang-N packages install `clang-N`, not `clang`, and a clang-N without its libomp (clang
// 19 beside clang 14's libomp-14-dev, which conflicts with libomp-19-dev) compiles but cannot link
// `-fopenmp`. Only the run's settings in memory change; compile.sh and the settings files on disk
// stay as the user wrote them.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executablesOnPath, runProcess } from '../process.js';
import type { BuildConfig } from '../formats/types.js';

const BARE = { CC: 'clang', CXX: 'clang++' } as const;

/** Why `command` cannot build, link and run a small OpenMP program, or null when it can. */
export type OpenMPProbe = (command: string) => Promise<string | null>;

export interface BareClangResolution {
  /** The bare name each versioned one replaces, e.g. clang → clang-14. */
  replaced: ReadonlyMap<string, string>;
  /** Newer versioned names not taken, each with why (it cannot link OpenMP). */
  passedOver: ReadonlyArray<{ name: string; reason: string }>;
  /** Versioned names taken although none on PATH passed the probe, each with why it failed. */
  unproven: ReadonlyArray<{ name: string; reason: string }>;
  settings: Record<string, string>;
}

/**
 * `settings` with a bare clang/clang++ as the first word of CC/CXX replaced by the newest
 * `clang-<N>`/`clang++-<N>` in `onPath` (the names in the PATH folders) that `probe` accepts, when
 * the bare one is not there. N compares as a number, so clang-14 is newer than clang-9. When no
 * versioned one passes the probe the newest is taken all the same: the build then fails with the
 * compiler's own words, which say more than a refusal here would.
 */
export async function resolveBareClang(
  settings: Record<string, string>,
  onPath: ReadonlySet<string>,
  probe: OpenMPProbe,
): Promise<BareClangResolution> {
  const replaced = new Map<string, string>();
  const passedOver: Array<{ name: string; reason: string }> = [];
  const unproven: Array<{ name: string; reason: string }> = [];
  const resolved = { ...settings };
  for (const [key, bare] of Object.entries(BARE)) {
    const words = settings[key]?.trim().split(/\s+/);
    if (words?.[0] !== bare || onPath.has(bare)) continue;
    const candidates = versionedNewestFirst(bare, onPath);
    if (candidates.length === 0) continue;
    const refused: Array<{ name: string; reason: string }> = [];
    let chosen: string | undefined;
    for (const name of candidates) {
      const reason = await probe(name);
      if (reason === null) {
        chosen = name;
        break;
      }
      refused.push({ name, reason });
    }
    if (chosen !== undefined) passedOver.push(...refused);
    else {
      chosen = candidates[0]!;
      unproven.push(refused[0]!);
    }
    replaced.set(bare, chosen);
    resolved[key] = [chosen, ...words.slice(1)].join(' ');
  }
  return { replaced, passedOver, unproven, settings: resolved };
}

/** The `bare-<N>` names among `names`, newest first (N as a number: clang-19 before clang-9). */
export function versionedNewestFirst(bare: string, names: Iterable<string>): string[] {
  const prefix = `${bare}-`;
  return [...new Set(names)]
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .sort((a, b) => Number(b.slice(prefix.length)) - Number(a.slice(prefix.length)));
}

const PROBE_PROGRAM = `#include <omp.h>
int main(void) {
  int threads = 0;
#pragma omp parallel reduction(+ : threads)
  threads += 1;
  return threads == omp_get_max_threads() ? 0 : 1;
}
`;

/**
 * The probe the run uses: `command -fopenmp` builds and links a small program with PATH as the
 * build gets it, and the program runs (a libomp found at link time but not at run time fails too).
 */
export function openMPProbe(searchPath: string): OpenMPProbe {
  return (command) => openMPProgramProblem(command, searchPath, { flags: [], run: true });
}

/**
 * Why `command -fopenmp <flags>` cannot build and link a small OpenMP program (and, with `run`,
 * run it), or null when it can. The race check asks the same of `-fsanitize=thread` without running.
 */
export async function openMPProgramProblem(
  command: string,
  searchPath: string,
  o: { flags: readonly string[]; run: boolean },
): Promise<string | null> {
  const dir = await mkdtemp(join(tmpdir(), 'pr-clang-probe-'));
  try {
    const source = join(dir, command.startsWith('clang++') ? 'probe.cpp' : 'probe.c');
    await writeFile(source, PROBE_PROGRAM);
    const env = { PATH: searchPath, LC_ALL: 'C' };
    const built = await runProcess({
      command,
      args: ['-fopenmp', ...o.flags, source, '-o', join(dir, 'probe')],
      cwd: dir,
      env,
      timeoutMs: 120_000,
    });
    if (built.kind !== 'exited') return `${command} -fopenmp did not finish (${built.kind})`;
    if (built.exitCode !== 0) {
      // The linker's own line says why; the driver's "linker command failed" only that it did.
      const errors = (built.stderr + built.stdout)
        .split('\n')
        .filter((line) => /error|cannot find|undefined reference/.test(line));
      const said = errors.find((line) => !/linker command failed/.test(line)) ?? errors[0];
      return `it cannot build and link an OpenMP program${said === undefined ? '' : `: ${said.trim()}`}`;
    }
    if (!o.run) return null;
    const ran = await runProcess({
      command: join(dir, 'probe'),
      cwd: dir,
      env: { OMP_NUM_THREADS: '2' },
      timeoutMs: 20_000,
    });
    if (ran.kind !== 'exited' || ran.exitCode !== 0) {
      const said = ran.kind === 'spawn-failed' ? '' : (ran.stderr.split('\n')[0] ?? '').trim();
      return `its OpenMP program does not run${said === '' ? '' : `: ${said}`}`;
    }
    return null;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The configuration with its settings (and seq settings) resolved against the PATH the build
 * gets, and the one notice that says so, or null when nothing changed.
 */
export async function resolveBareClangInConfig(
  config: BuildConfig,
  parentPath: string,
  probeFor: (searchPath: string) => OpenMPProbe = openMPProbe,
): Promise<{ config: BuildConfig; notice: string | null }> {
  // Each settings file is resolved against the PATH its own builds get.
  const resolve = async (settings: Record<string, string>) => {
    const searchPath = settings['PATH'] ?? parentPath;
    const onPath = new Set(
      (await executablesOnPath(searchPath, (name) => /^clang(?:\+\+)?(?:-\d+)?$/.test(name))).keys(),
    );
    return resolveBareClang(settings, onPath, probeFor(searchPath));
  };
  const par = await resolve(config.settings);
  const seq = config.seqSettings === undefined ? undefined : await resolve(config.seqSettings);
  const replaced = new Map([...par.replaced, ...(seq?.replaced ?? [])]);
  if (replaced.size === 0) return { config, notice: null };
  const passedOver = new Map(
    [...par.passedOver, ...(seq?.passedOver ?? [])].map((entry) => [entry.name, entry.reason]),
  );
  const bare = [...replaced.keys()];
  const versioned = [...replaced.values()];
  const unproven = new Map([...par.unproven, ...(seq?.unproven ?? [])].map((entry) => [entry.name, entry.reason]));
  const skipped = [...passedOver].map(([name, reason]) => `; passed over ${name}: ${reason}`).join('');
  const failing = [...unproven].map(([name, reason]) => `; ${name}: ${reason}`).join('');
  const which = unproven.size === 0 ? ' that builds and links OpenMP' : '; none of them builds and links OpenMP';
  const notice = `${bare.join(' and ')} ${bare.length === 1 ? 'is' : 'are'} not on PATH; using ${versioned.join(' and ')} (newest ${bare
    .map((name) => `${name}-<N>`)
    .join(' and ')} on PATH${which}${skipped}${failing}) for this run`;
  return {
    config: { ...config, settings: par.settings, ...(seq !== undefined && { seqSettings: seq.settings }) },
    notice,
  };
}
