// A bare clang/clang++ in the settings that is not on PATH resolves to the newest clang-<N> on it
// that builds and links OpenMP; the probe itself is run on the real clang-14 and on a fake newer
// clang that compiles but cannot link.
import { chmodSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openMPProbe, resolveBareClang, resolveBareClangInConfig } from '../../src/build/bare-clang.js';
import type { BuildConfig } from '../../src/formats/types.js';
import { executablesOnPath, findExecutable } from '../../src/process.js';

const linksAll = async () => null;

const settings = { CC: 'clang', CXX: 'clang++ -stdlib=libstdc++', CFLAGS: '-O2 -fopenmp', CXXFLAGS: '-O2 -fopenmp' };

describe('resolveBareClang', () => {
  it('passes over a newer clang-<N> that cannot link OpenMP and says why; takes the newest when none can', async () => {
    const onPath = new Set(['clang-14', 'clang-19', 'clang-20', 'clang++-14', 'clang++-19', 'clang++-20']);
    const only14 = async (name: string) => (name.endsWith('-14') ? null : `no libomp for ${name}`);
    const resolved = await resolveBareClang(settings, onPath, only14);
    expect(resolved.settings).toMatchObject({ CC: 'clang-14', CXX: 'clang++-14 -stdlib=libstdc++' });
    expect(resolved.passedOver).toEqual([
      { name: 'clang-20', reason: 'no libomp for clang-20' },
      { name: 'clang-19', reason: 'no libomp for clang-19' },
      { name: 'clang++-20', reason: 'no libomp for clang++-20' },
      { name: 'clang++-19', reason: 'no libomp for clang++-19' },
    ]);
    expect(resolved.unproven).toEqual([]);
    const none = await resolveBareClang({ CC: 'clang' }, onPath, async () => 'no libomp');
    expect(none.settings['CC']).toBe('clang-20');
    expect(none.passedOver).toEqual([]);
    expect(none.unproven).toEqual([{ name: 'clang-20', reason: 'no libomp' }]);
  });

  it('picks the newest by the number, not the text: clang-14 over clang-9; clang-14.0 is no clang-<N>', async () => {
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
    const resolved = await resolveBareClang(settings, onPath, linksAll);
    expect(resolved.settings).toEqual({ ...settings, CC: 'clang-14', CXX: 'clang++-14 -stdlib=libstdc++' });
    expect([...resolved.replaced]).toEqual([
      ['clang', 'clang-14'],
      ['clang++', 'clang++-14'],
    ]);
  });

  it('changes nothing when clang itself is on PATH', async () => {
    const resolved = await resolveBareClang(
      settings,
      new Set(['clang', 'clang++', 'clang-14', 'clang++-14']),
      linksAll,
    );
    expect(resolved.settings).toEqual(settings);
    expect(resolved.replaced.size).toBe(0);
  });

  it('changes nothing when no clang-<N> is on PATH either: the build then fails with its own error', async () => {
    const resolved = await resolveBareClang(settings, new Set(['gcc', 'clang-cpp-14']), linksAll);
    expect(resolved.settings).toEqual(settings);
    expect(resolved.replaced.size).toBe(0);
  });

  it('leaves other compilers and versioned or path-qualified clangs alone', async () => {
    const other = { CC: 'gcc', CXX: '/opt/llvm/bin/clang++' };
    expect((await resolveBareClang(other, new Set(['clang-14', 'clang++-14']), linksAll)).settings).toEqual(other);
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

/**
 * A PATH folder of links to /usr/bin with no bare clang and no versioned one but clang-14, and a
 * fake `clang-99` that compiles like clang-14 but cannot link OpenMP.
 */
function pathWithUnlinkableClang99(): string {
  const bin = mkdtempSync(path.join(tmpdir(), 'pr-clang-99-'));
  for (const name of readdirSync('/usr/bin')) {
    if (/^clang(?:\+\+)?(?:-\d+)?$/.test(name) && name !== 'clang-14') continue;
    symlinkSync(path.join('/usr/bin', name), path.join(bin, name));
  }
  writeFileSync(path.join(bin, 'clang-99'), '#!/bin/sh\nexec /usr/bin/clang-14 "$@" -lomp_of_clang_99\n');
  chmodSync(path.join(bin, 'clang-99'), 0o755);
  return bin;
}

describe('the OpenMP probe, with real compilers', () => {
  it("accepts clang-14 and refuses a clang-99 that cannot link, with the linker's words", async () => {
    const bin = pathWithUnlinkableClang99();
    const probe = openMPProbe(bin);
    expect(await probe('clang-14')).toBeNull();
    expect(await probe('clang-99')).toMatch(/^it cannot build and link an OpenMP program: .*omp_of_clang_99/);
  });

  it('the configuration then builds with clang-14 and the notice names clang-99 and why', async () => {
    const bin = pathWithUnlinkableClang99();
    const config: BuildConfig = {
      name: 'tiny',
      dir: '/p/configs/tiny',
      compileScript: '/p/configs/tiny/compile.sh',
      layout: 'per-configuration',
      settingsSource: 'par_settings.json',
      settings: { CC: 'clang' },
    };
    const resolved = await resolveBareClangInConfig(config, `${bin}${path.delimiter}/usr/bin/no-such-folder`);
    expect(resolved.config.settings['CC']).toBe('clang-14');
    expect(resolved.notice).toMatch(
      /^clang is not on PATH; using clang-14 \(newest clang-<N> on PATH that builds and links OpenMP; passed over clang-99: it cannot build and link an OpenMP program: .*omp_of_clang_99.*\) for this run$/,
    );
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
