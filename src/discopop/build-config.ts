// project/configs/ (formats.md §1.8): compile.sh builds the project; the settings JSON becomes its
// environment. Two layouts exist. In the per-configuration one (DiscoPoP's master) compile.sh and
// the settings live in project/configs/<name>/; the parallel build is what a suggestion needs, so
// par_settings.json wins and, without it, DiscoPoP's derivation from seq_settings.json is
// reproduced in memory. In the shared one (new_explorer) compile.sh and seq_settings.json live
// once in project/configs/, a configuration's own compile.sh overrides the shared one, and the par
// settings are derived afresh every run, so a par_settings.json lying there is stale and unused.
// Nothing is ever written: that would change the user's project outside patch_repair/.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SeqSettingsSchema, SettingsFileSchema } from '../formats/discopop.js';
import type { BuildConfig } from '../formats/types.js';
import { readJsonFile } from './json-file.js';
import { isNotFound, pathKind } from './path-kind.js';
import { Problems } from './problems.js';

export async function readBuildConfig(o: {
  dotDir: string;
  name: string;
  problems: Problems;
}): Promise<BuildConfig | undefined> {
  const configsDir = join(o.dotDir, 'project', 'configs');
  const dir = join(configsDir, o.name);
  if ((await pathKind(dir)) !== 'directory') {
    const available = await listDirectories(configsDir);
    o.problems.add(
      dir,
      `-c ${o.name}`,
      `expected an execution configuration folder (${
        available.length > 0
          ? `available: ${available.join(', ')}`
          : 'none exists; create one with discopop_project_manager --init'
      })`,
    );
    return undefined;
  }
  const sharedScript = join(configsDir, 'compile.sh');
  const sharedSeq = join(configsDir, 'seq_settings.json');
  if ((await pathKind(sharedScript)) === 'file' || (await pathKind(sharedSeq)) === 'file') {
    return readSharedLayout({ name: o.name, dir, sharedScript, sharedSeq, problems: o.problems });
  }
  const compileScript = join(dir, 'compile.sh');
  const hasScript = (await pathKind(compileScript)) === 'file';
  if (!hasScript)
    o.problems.add(compileScript, 'whole file', 'expected the script that builds the project; it is missing');

  const settings = await readSettings(dir, o.problems);
  if (!hasScript || settings === undefined) return undefined;
  return { name: o.name, dir, compileScript, ...settings, layout: 'per-configuration' };
}

async function readSharedLayout(o: {
  name: string;
  dir: string;
  sharedScript: string;
  sharedSeq: string;
  problems: Problems;
}): Promise<BuildConfig | undefined> {
  const own = join(o.dir, 'compile.sh');
  const compileScript = (await pathKind(own)) === 'file' ? own : o.sharedScript;
  const hasScript = compileScript === own || (await pathKind(o.sharedScript)) === 'file';
  if (!hasScript) {
    o.problems.add(
      o.sharedScript,
      'whole file',
      `expected the script that builds the project, here or in ${o.dir}; it is missing`,
    );
  }
  const seq = await readJsonFile(o.sharedSeq, SeqSettingsSchema, o.problems);
  if (seq.kind === 'missing')
    o.problems.add(
      o.sharedSeq,
      'whole file',
      'expected the shared seq_settings.json beside the shared compile.sh; it is missing',
    );
  if (!hasScript || seq.kind !== 'ok') return undefined;
  return {
    name: o.name,
    dir: o.dir,
    compileScript,
    settings: deriveParallelSettings(seq.value),
    settingsSource: 'seq_settings.json (derived)',
    layout: 'shared',
  };
}

async function readSettings(
  dir: string,
  problems: Problems,
): Promise<Pick<BuildConfig, 'settings' | 'settingsSource' | 'seqSettings' | 'seqSettingsProblem'> | undefined> {
  const par = await readJsonFile(join(dir, 'par_settings.json'), SettingsFileSchema, problems);
  if (par.kind === 'invalid') return undefined;
  const seqFile = join(dir, 'seq_settings.json');
  // Beside a valid par_settings.json only --check-run builds with seq_settings.json: its problem
  // is kept for that, not a reason to refuse every run.
  const seqProblems = par.kind === 'ok' ? new Problems() : problems;
  const seq = await readJsonFile(seqFile, SeqSettingsSchema, seqProblems);
  if (par.kind === 'ok') {
    if (seq.kind === 'invalid')
      return { settings: par.value, settingsSource: 'par_settings.json', seqSettingsProblem: seqProblems.lines[0]! };
    const derived = seq.kind === 'ok' && sameSettings(par.value, deriveParallelSettings(seq.value));
    return {
      settings: par.value,
      settingsSource: 'par_settings.json',
      ...(seq.kind === 'ok' && !derived && { seqSettings: seq.value }),
    };
  }
  if (seq.kind === 'invalid') return undefined;
  if (seq.kind === 'ok')
    return { settings: deriveParallelSettings(seq.value), settingsSource: 'seq_settings.json (derived)' };
  if (seq.kind === 'missing') {
    problems.add(
      join(dir, 'par_settings.json'),
      'whole file',
      'expected par_settings.json or seq_settings.json; neither exists',
    );
  }
  return undefined;
}

function sameSettings(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

/** DiscoPoP's `derive_settings_files`: `-fopenmp` appended, with a separating space only when needed. */
export function deriveParallelSettings(seq: Record<string, string>): Record<string, string> {
  const withOpenmp = (flags: string) => (flags.length !== 0 ? `${flags} -fopenmp` : '-fopenmp');
  return { ...seq, CFLAGS: withOpenmp(seq['CFLAGS'] ?? ''), CXXFLAGS: withOpenmp(seq['CXXFLAGS'] ?? '') };
}

async function listDirectories(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}
