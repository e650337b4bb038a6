// A bare clang/clang++ in the settings that is not on PATH resolves to the newest clang-<N> on it.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveBareClang, resolveBareClangInConfig } from '../../src/discopop/bare-clang.js';
import type { BuildConfig } from '../../src/formats/types.js';
import { executablesOnPath, findExecutable } from '../../src/process.js';

const settings = { CC: 'clang', CXX: 'clang++ -stdlib=libstdc++', CFLAGS: '-O2 -fopenmp', CXXFLAGS: '-O2 -fopenmp' };

describe('resolveBareClang', () => {
  it('picks the newest by the number, not the text: clang-14 over clang-9; clang-14.0 is no clang-<N>', () => {
    const onPath = new Set([
      'sh',
      'clang-9',
      'clang-14',
      'clang-14.0',
      'clang++-9',
      'clang++-14',
      'clang-cpp-14',
      'clang-format-18',
    ]);
    const resolved = resolveBareClang(settings, onPath);
    expect(resolved.settings).toEqual({ ...settings, CC: 'clang-14', CXX: 'clang++-14 -stdlib=libstdc++' });
    expect([...resolved.replaced]).toEqual([
      ['clang', 'clang-14'],
      ['clang++', 'clang++-14'],
    ]);
  });

  it('changes nothing when clang itself is on PATH', () => {
    const resolved = resolveBareClang(settings, new Set(['clang', 'clang++', 'clang-14', 'clang++-14']));
    expect(resolved.settings).toEqual(settings);
    expect(resolved.replaced.size).toBe(0);
  });

  it('changes nothing when no clang-<N> is on PATH either: the build then fails with its own error', () => {
    const resolved = resolveBareClang(settings, new Set(['gcc', 'clang-cpp-14']));
    expect(resolved.settings).toEqual(settings);
    expect(resolved.replaced.size).toBe(0);
  });

  it('leaves other compilers and versioned or path-qualified clangs alone', () => {
    const other = { CC: 'gcc', CXX: '/opt/llvm/bin/clang++' };
    expect(resolveBareClang(other, new Set(['clang-14', 'clang++-14'])).settings).toEqual(other);
  });
});

describe('the PATH scan (executablesOnPath, findExecutable): one for the agent CLIs and the bare clang', () => {
  it('lists the executables in every PATH folder, the first folder winning, and skips a missing folder and a file without the execute bit', async () => {
    const a = mkdtempSync(path.join(tmpdir(), 'pr-path-a-'));
    const b = mkdtempSync(path.join(tmpdir(), 'pr-path-b-'));
    for (const [dir, name, mode] of [
      [a, 'clang-14', 0o755],
      [b, 'clang++-14', 0o755],
      [b, 'clang-14', 0o755],
      [a, 'clang-15', 0o644],
    ] as const) {
      writeFileSync(path.join(dir, name), '');
      chmodSync(path.join(dir, name), mode);
    }
    const searchPath = [a, path.join(a, 'missing'), b].join(path.delimiter);
    const found = await executablesOnPath(searchPath, (name) => name.startsWith('clang'));
    expect(Object.fromEntries(found)).toEqual({
      'clang-14': path.join(a, 'clang-14'),
      'clang++-14': path.join(b, 'clang++-14'),
    });
    expect(await findExecutable('clang++-14', searchPath)).toBe(path.join(b, 'clang++-14'));
    expect(await findExecutable('clang-15', searchPath)).toBeNull();
    expect(await findExecutable(path.join(b, 'clang-14'), '')).toBe(path.join(b, 'clang-14'));
  });
});

describe('resolveBareClangInConfig', () => {
  it('resolves the parallel and the sequential settings each against its own PATH', async () => {
    const par = mkdtempSync(path.join(tmpdir(), 'pr-path-par-'));
    const seq = mkdtempSync(path.join(tmpdir(), 'pr-path-seq-'));
    for (const [dir, name] of [
      [par, 'clang-14'],
      [seq, 'clang-15'],
    ] as const) {
      writeFileSync(path.join(dir, name), '');
      chmodSync(path.join(dir, name), 0o755);
    }
    const config: BuildConfig = {
      name: 'tiny',
      dir: '/p/configs/tiny',
      compileScript: '/p/configs/tiny/compile.sh',
      layout: 'per-configuration',
      settingsSource: 'par_settings.json',
      settings: { CC: 'clang', PATH: par },
      seqSettings: { CC: 'clang', PATH: seq },
    };
    const resolved = await resolveBareClangInConfig(config, '');
    expect(resolved.config.settings['CC']).toBe('clang-14');
    expect(resolved.config.seqSettings?.['CC']).toBe('clang-15');
  });
});
