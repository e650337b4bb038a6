// What `npm pack` ships is what a user installs: the project is packed from a copy of the working
// tree (its own `npm ci`, so neither the checkout's node_modules nor its dist/ take part), the
// tarball is installed into a temporary prefix with the npm on PATH, and the installed
// `patch-repair` runs the main job on the demo.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../../src/process.js';
import { resultsOf } from '../../src/formats/results-document.js';
import { useFixture } from '../helpers/fixture.js';

const CHECKOUT = path.resolve('.');
const NOT_SOURCES = new Set(['node_modules', 'dist', '.cache', '.git', 'test-results.json']);
const version = (JSON.parse(readFileSync(path.join(CHECKOUT, 'package.json'), 'utf8')) as { version: string }).version;

let scratch: string;
let installed: string;
let packed: string[];

async function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const outcome = await runProcess({
    command,
    args,
    cwd,
    env: { npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false', ...env },
    timeoutMs: 300_000,
  });
  if (outcome.kind !== 'exited') throw new Error(`${command} ${args.join(' ')}: ${outcome.kind}`);
  if (outcome.exitCode !== 0 && command === 'npm')
    throw new Error(`${command} ${args.join(' ')} exited ${outcome.exitCode}:\n${outcome.stderr}`);
  return outcome;
}

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'package-'));
  const tree = path.join(scratch, 'tree');
  cpSync(CHECKOUT, tree, {
    recursive: true,
    filter: (source) => !NOT_SOURCES.has(path.relative(CHECKOUT, source).split(path.sep)[0]!),
  });
  await run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], tree);
  const pack = await run('npm', ['pack', '--json', '--pack-destination', scratch], tree);
  const [manifest] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as {
    filename: string;
    files: { path: string }[];
  }[];
  packed = manifest!.files.map((file) => file.path);
  const prefix = path.join(scratch, 'prefix');
  mkdirSync(prefix);
  await run(
    'npm',
    ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', path.join(scratch, manifest!.filename)],
    scratch,
  );
  installed = path.join(prefix, 'bin', 'patch-repair');
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('holds the compiled CLI and what it reads at run time, and nothing for developing it', () => {
    const tops = new Set(packed.map((file) => file.split('/')[0]));
    expect([...tops].sort()).toEqual([
      'LICENSE',
      'README.md',
      'backends',
      'dist',
      'package.json',
      'prompts',
      'schemas',
    ]);
    expect(packed).toContain('dist/cli.js');
    expect(packed.filter((file) => file.endsWith('.map') || file.endsWith('.ts'))).toEqual([]);
    // DiscoPoP's templates are read from the user's DiscoPoP, never shipped (docs/backends.md).
    expect(packed.filter((file) => file.startsWith('prompts/discopop/'))).toEqual([]);
  });

  it('carries the BSD 3-Clause licence, named in package.json and shipped as LICENSE', () => {
    const root = path.join(path.dirname(path.dirname(installed)), 'lib', 'node_modules', 'patch-repair');
    expect((JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { license?: string }).license).toBe(
      'BSD-3-Clause',
    );
    const licence = readFileSync(path.join(root, 'LICENSE'), 'utf8');
    expect(licence).toMatch(/^BSD 3-Clause License/);
    expect(licence).toContain('Copyright (c) 2026, the patch-repair authors');
  });

  it('installs a patch-repair that prints its version, repairs the demo and writes the report', async () => {
    expect(existsSync(installed)).toBe(true);
    const { dotDir } = useFixture('demo');
    // Run from the project, as a user does, with nothing of the checkout reachable.
    const versionRun = await run(installed, ['--version'], dotDir);
    expect(versionRun.stdout.trim()).toBe(version);

    const repair = await run(installed, ['--dot-dp-path', dotDir, '--backend', 'builtin'], dotDir);
    expect(repair.exitCode, repair.stdout + repair.stderr).toBe(0);
    const results = resultsOf(JSON.parse(readFileSync(path.join(dotDir, 'patch_repair', 'results.json'), 'utf8')));
    expect(Object.fromEntries(results.suggestions.map((s) => [s.id, s.status]))).toEqual({
      '0': 'ok',
      '1': 'ok',
      '2': 'repaired',
      '3': 'repaired',
      '4': 'repaired',
      '5': 'repaired',
      '6': 'repaired',
      '7': 'skipped',
      '9': 'repaired',
    });

    const report = await run(installed, ['report', '--dot-dp-path', dotDir], dotDir);
    expect(report.exitCode, report.stderr).toBe(0);
    const page = readFileSync(path.join(dotDir, 'patch_repair', 'report.html'), 'utf8');
    expect(page).toContain('<html');
    expect(page).toContain('repaired');
  });
});
