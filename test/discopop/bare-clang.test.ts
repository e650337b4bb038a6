// A bare clang/clang++ in the settings that is not on PATH resolves to the newest clang-<N> on it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { namesOnPath, resolveBareClang } from '../../src/discopop/bare-clang.js';

const settings = { CC: 'clang', CXX: 'clang++ -stdlib=libstdc++', CFLAGS: '-O2 -fopenmp', CXXFLAGS: '-O2 -fopenmp' };

describe('resolveBareClang', () => {
  it('picks the newest by the number, not the text: clang-14 over clang-9; clang-14.0 is no clang-<N>', () => {
    const onPath = new Set(['sh', 'clang-9', 'clang-14', 'clang-14.0', 'clang++-9', 'clang++-14', 'clang-cpp-14', 'clang-format-18']);
    const resolved = resolveBareClang(settings, onPath);
    expect(resolved.settings).toEqual({ ...settings, CC: 'clang-14', CXX: 'clang++-14 -stdlib=libstdc++' });
    expect([...resolved.replaced]).toEqual([['clang', 'clang-14'], ['clang++', 'clang++-14']]);
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

describe('namesOnPath', () => {
  it('lists the names in every PATH folder and skips one that does not exist', async () => {
    const a = mkdtempSync(path.join(tmpdir(), 'pr-path-a-'));
    const b = mkdtempSync(path.join(tmpdir(), 'pr-path-b-'));
    writeFileSync(path.join(a, 'clang-14'), '');
    writeFileSync(path.join(b, 'clang++-14'), '');
    const names = await namesOnPath([a, path.join(a, 'missing'), b].join(path.delimiter));
    expect([...names].sort()).toEqual(['clang++-14', 'clang-14']);
  });
});
