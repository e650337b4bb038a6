// project/configs/<name>/ (formats.md §1.8): compile.sh builds the project; the settings JSON
// becomes its environment. The parallel build is what a suggestion needs, so par_settings.json
// wins; without it DiscoPoP's derivation from seq_settings.json is reproduced in memory only,
// because writing it would change the user's project outside patch_repair/.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SeqSettingsSchema, SettingsFileSchema } from '../formats/discopop.js';
import type { BuildConfig } from '../formats/types.js';
import { readJsonFile } from './json-file.js';
import { isNotFound, pathKind } from './path-kind.js';
import type { Problems } from './problems.js';

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
        available.length > 0 ? `available: ${available.join(', ')}` : 'none exists; create one with discopop_project_manager --init'
      })`,
    );
    return undefined;
  }
  const compileScript = join(dir, 'compile.sh');
  const hasScript = (await pathKind(compileScript)) === 'file';
  if (!hasScript) o.problems.add(compileScript, 'whole file', 'expected the script that builds the project; it is missing');

  const settings = await readSettings(dir, o.problems);
  if (!hasScript || settings === undefined) return undefined;
  return { name: o.name, dir, compileScript, ...settings };
}

async function readSettings(
  dir: string,
  problems: Problems,
): Promise<Pick<BuildConfig, 'settings' | 'settingsSource'> | undefined> {
  const par = await readJsonFile(join(dir, 'par_settings.json'), SettingsFileSchema, problems);
  if (par.kind === 'ok') return { settings: par.value, settingsSource: 'par_settings.json' };
  if (par.kind === 'invalid') return undefined;
  const seqFile = join(dir, 'seq_settings.json');
  const seq = await readJsonFile(seqFile, SeqSettingsSchema, problems);
  if (seq.kind === 'ok') return { settings: deriveParallelSettings(seq.value), settingsSource: 'seq_settings.json (derived)' };
  if (seq.kind === 'missing') {
    problems.add(join(dir, 'par_settings.json'), 'whole file', 'expected par_settings.json or seq_settings.json; neither exists');
  }
  return undefined;
}

/** DiscoPoP's `derive_settings_files`: `-fopenmp` appended, with a separating space only when needed. */
export function deriveParallelSettings(seq: Record<string, string>): Record<string, string> {
  const withOpenmp = (flags: string) => (flags.length !== 0 ? `${flags} -fopenmp` : '-fopenmp');
  return { ...seq, CFLAGS: withOpenmp(seq['CFLAGS'] ?? ''), CXXFLAGS: withOpenmp(seq['CXXFLAGS'] ?? '') };
}

async function listDirectories(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}
