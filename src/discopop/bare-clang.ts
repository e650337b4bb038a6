// A bare `clang`/`clang++` in the settings that is not on PATH stands for the newest versioned
// one that is, as DiscoPoP's project manager has it: Debian's clang-14 packages install
// `clang-14`, not `clang`. Only the run's settings in memory change; compile.sh and the settings
// files on disk stay as the user wrote them.
import { executablesOnPath } from '../process.js';
import type { BuildConfig } from '../formats/types.js';

const BARE = { CC: 'clang', CXX: 'clang++' } as const;

export interface BareClangResolution {
  /** The bare name each versioned one replaces, e.g. clang → clang-14. */
  replaced: ReadonlyMap<string, string>;
  settings: Record<string, string>;
}

/**
 * `settings` with a bare clang/clang++ as the first word of CC/CXX replaced by the newest
 * `clang-<N>`/`clang++-<N>` in `onPath` (the names in the PATH folders) when the bare one is not
 * there. N compares as a number, so clang-14 is newer than clang-9.
 */
export function resolveBareClang(settings: Record<string, string>, onPath: ReadonlySet<string>): BareClangResolution {
  const replaced = new Map<string, string>();
  const resolved = { ...settings };
  for (const [key, bare] of Object.entries(BARE)) {
    const words = settings[key]?.trim().split(/\s+/);
    if (words?.[0] !== bare || onPath.has(bare)) continue;
    const newest = newestVersioned(bare, onPath);
    if (newest === undefined) continue;
    replaced.set(bare, newest);
    resolved[key] = [newest, ...words.slice(1)].join(' ');
  }
  return { replaced, settings: resolved };
}

function newestVersioned(bare: string, onPath: ReadonlySet<string>): string | undefined {
  const prefix = `${bare}-`;
  let best: { name: string; version: number } | undefined;
  for (const name of onPath) {
    if (!name.startsWith(prefix) || !/^\d+$/.test(name.slice(prefix.length))) continue;
    const version = Number(name.slice(prefix.length));
    if (best === undefined || version > best.version) best = { name, version };
  }
  return best?.name;
}

/**
 * The configuration with its settings (and seq settings) resolved against the PATH the build
 * gets, and the one notice that says so, or null when nothing changed.
 */
export async function resolveBareClangInConfig(
  config: BuildConfig,
  parentPath: string,
): Promise<{ config: BuildConfig; notice: string | null }> {
  // Each settings file is resolved against the PATH its own builds get.
  const clangsOn = async (settings: Record<string, string>) =>
    new Set(
      (
        await executablesOnPath(settings['PATH'] ?? parentPath, (name) => /^clang(?:\+\+)?(?:-\d+)?$/.test(name))
      ).keys(),
    );
  const par = resolveBareClang(config.settings, await clangsOn(config.settings));
  const seq =
    config.seqSettings === undefined
      ? undefined
      : resolveBareClang(config.seqSettings, await clangsOn(config.seqSettings));
  const replaced = new Map([...par.replaced, ...(seq?.replaced ?? [])]);
  if (replaced.size === 0) return { config, notice: null };
  const bare = [...replaced.keys()];
  const versioned = [...replaced.values()];
  const notice = `${bare.join(' and ')} ${bare.length === 1 ? 'is' : 'are'} not on PATH; using ${versioned.join(' and ')} (newest ${bare
    .map((name) => `${name}-<N>`)
    .join(' and ')} on PATH) for this run`;
  return {
    config: { ...config, settings: par.settings, ...(seq !== undefined && { seqSettings: seq.settings }) },
    notice,
  };
}
