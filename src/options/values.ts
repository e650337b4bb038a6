// One parser per flag value. Each appends what is wrong to `problems` and returns a usable
// stand-in, so that toRunOptions reports every bad value of a command line at once.
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { LAUNCHERS, splitLauncherArgs, type LauncherName } from '../build/launcher.js';
import { pathKind } from '../discopop/path-kind.js';
import { DEFAULTS, LOG_LEVELS, type CheckRunScope, type LogLevel, type Mode } from '../formats/run-options.js';
import { HOTNESS, type Hotness } from '../formats/types.js';
import type { RunFlags } from './flags.js';

export function pickMode(flags: RunFlags, problems: string[]): Mode {
  const chosen = (
    [
      ['--restore', flags.restore],
      ['--discover-only', flags.discoverOnly],
      ['--dry-run', flags.dryRun],
    ] as const
  ).filter(([, on]) => on === true);
  if (chosen.length > 1) {
    problems.push(`${chosen.map(([name]) => name).join(' and ')} exclude each other: choose one`);
  }
  const first = chosen[0]?.[0];
  if (first === '--restore') return 'restore';
  if (first === '--discover-only') return 'discover-only';
  if (first === '--dry-run') return 'dry-run';
  return 'repair';
}

export function parseCheckRun(
  raw: boolean | string | undefined,
  problems: string[],
  flag = '--check-run',
): CheckRunScope {
  if (raw === undefined || raw === false) return 'off';
  if (raw === true) return 'repairs';
  if (raw === 'all') return 'all';
  problems.push(`${flag}: expected nothing or 'all' after it; got '${raw}'`);
  return 'off';
}

export function tolerance(raw: string, problems: string[]): number {
  const value = /^\s*\d+(\.\d*)?([eE][+-]?\d+)?\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (value >= 0 && value < 1) return value;
  problems.push(
    `--run-tolerance: expected a relative tolerance from 0 up to (not including) 1, such as 1e-6; got '${raw}'`,
  );
  return DEFAULTS.runTolerance;
}

export function parseHotspotTypes(raw: string, problems: string[]): Hotness[] {
  const items = raw.split(',').map((item) => item.trim());
  const bad = items.filter((item) => !HOTNESS.includes(item.toUpperCase() as Hotness));
  if (bad.length > 0) {
    problems.push(`--hotspot-types: expected a comma-separated list of yes, no, maybe; got '${raw}'`);
    return [];
  }
  return HOTNESS.filter((h) => items.some((item) => item.toUpperCase() === h));
}

export function parseIds(raw: string, problems: string[]): string[] {
  const ids = raw.split(',').map((id) => id.trim());
  if (ids.some((id) => id === '' || id.includes('/'))) {
    problems.push(`--suggestions: expected comma-separated suggestion ids such as 3,7; got '${raw}'`);
    return [];
  }
  return [...new Set(ids)];
}

export function parseLauncher(raw: string, problems: string[]): LauncherName {
  if ((LAUNCHERS as readonly string[]).includes(raw)) return raw as LauncherName;
  problems.push(`--launcher: expected one of ${LAUNCHERS.join(', ')}; got '${raw}'`);
  return 'local';
}

/** Without Slurm the arguments would be dropped silently, which a user would never expect. */
export function parseLauncherArgs(raw: string | undefined, launcher: LauncherName, problems: string[]): string[] {
  if (raw === undefined) return [];
  if (launcher !== 'slurm') {
    problems.push(`--launcher-args: only used with --launcher slurm; got '${raw}' with --launcher ${launcher}`);
    return [];
  }
  const words = splitLauncherArgs(raw);
  if (Array.isArray(words)) return words;
  problems.push(`--launcher-args: cannot split '${raw}' into words: ${words.problem}`);
  return [];
}

/** Globs are matched in the project root: an absolute path or `..` would name something outside it. */
export function parseExcludes(globs: string[], problems: string[]): string[] {
  for (const glob of globs) {
    if (glob.trim() === '' || isAbsolute(glob) || glob.split('/').includes('..')) {
      problems.push(
        `--exclude: expected a glob relative to the project root, such as build or 'data/**/*.h5'; got '${glob}'`,
      );
    }
  }
  return [...new Set(globs)];
}

export function parseLogLevel(raw: string, problems: string[]): LogLevel {
  const level = LOG_LEVELS.find((name) => name === raw.toUpperCase());
  if (level !== undefined) return level;
  problems.push(`--log: expected one of ${LOG_LEVELS.join(', ')}; got '${raw}'`);
  return DEFAULTS.log;
}

export function wholeNumber(name: string, raw: string, min: number, problems: string[]): number | undefined {
  const value = /^\s*[+-]?\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (Number.isSafeInteger(value) && value >= min) return value;
  problems.push(`${name}: expected a whole number of at least ${min}; got '${raw}'`);
  return undefined;
}

export function positiveAmount(name: string, raw: string, problems: string[]): number | undefined {
  const value = /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (value > 0) return value;
  problems.push(`${name}: expected an amount in US dollars greater than 0, such as 2.50; got '${raw}'`);
  return undefined;
}

export async function existingDirectory(
  name: string,
  raw: string | undefined,
  cwd: string,
  problems: string[],
): Promise<string | undefined> {
  if (raw === undefined) return undefined;
  const dir = resolve(cwd, raw);
  const kind = await pathKind(dir);
  if (kind === 'directory') return dir;
  problems.push(
    `${dir}: ${name}: expected an existing directory; ${kind === 'missing' ? 'it does not exist' : 'it is not a directory'}`,
  );
  return undefined;
}

export async function isInside(dir: string, root: string): Promise<boolean> {
  const [realDir, realRoot] = await Promise.all([realpath(dir), realpath(root)]);
  const rel = relative(realRoot, realDir);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
