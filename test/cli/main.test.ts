// The CLI entry point: options reach the pipeline and its exit code comes back, show and report
// dispatch, help needs no pipeline, bad usage is exit 2 with one line, a bug is exit 1 with its
// stack, and the installed binary does the same.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type CliDeps } from '../../src/cli.js';
import { InterruptedError, RefusedError } from '../../src/errors.js';
import { runProcess } from '../../src/process.js';
import type { RunOptions } from '../../src/formats/run-options.js';
import { minimalProject } from '../discopop/dot-tree.js';

interface Recorded {
  err: string;
  out: string;
  runs: RunOptions[];
  shows: object[];
  reports: object[];
}

function deps(cwd: string, behaviour: { run?: () => Promise<number> } = {}): CliDeps & { seen: Recorded } {
  const seen: Recorded = { err: '', out: '', runs: [], shows: [], reports: [] };
  return {
    seen,
    cwd,
    env: {},
    writeOut: (text) => void (seen.out += text),
    writeErr: (text) => void (seen.err += text),
    loadPipeline: async () => ({
      run: async (options) => {
        seen.runs.push(options);
        return behaviour.run ? behaviour.run() : 0;
      },
    }),
    loadReport: async () => ({
      show: async (o) => (seen.shows.push(o), 0),
      report: async (o) => (seen.reports.push(o), 0),
    }),
  };
}

describe('main: dispatch and exit codes', () => {
  it('hands the parsed options to the pipeline and returns its exit code', async () => {
    const { dot } = minimalProject();
    const d = deps(dot, { run: async () => 1 });
    expect(await main(['-ht', 'no', '--dry-run'], d)).toBe(1);
    expect(d.seen.runs).toMatchObject([{ mode: 'dry-run', hotspotTypes: ['NO'], dotDir: dot }]);
    expect(d.seen.err).toBe('');
  });

  it('dispatches show and report', async () => {
    const { dot } = minimalProject();
    const d = deps(dot);
    expect(await main(['show', '4'], d)).toBe(0);
    expect(await main(['report'], d)).toBe(0);
    expect(d.seen.shows).toEqual([{ dotDir: dot, id: '4' }]);
    expect(d.seen.reports).toEqual([{ dotDir: dot }]);
  });

  it('prints help without loading the pipeline', async () => {
    const d = deps('/nonexistent');
    expect(await main(['--help'], d)).toBe(0);
    expect(d.seen.out).toMatch(/^Usage: patch-repair/);
    expect(d.seen.runs).toEqual([]);
  });

  it('answers bad usage with exit 2 and the problem on stderr, one prefixed line each', async () => {
    const { dot } = minimalProject();
    const d = deps(dot);
    expect(await main(['--prompts', '-1', '-j', 'all'], d)).toBe(2);
    expect(d.seen.err).toBe(
      "patch-repair: --prompts: expected a whole number of at least 1; got '-1'\n" +
        "patch-repair: --jobs: expected a whole number of at least 1; got 'all'\n",
    );
    expect(d.seen.runs).toEqual([]);
  });

  it.each<[string, Error, number, string]>([
    ['a refusal', new RefusedError('2 suggestions applied'), 3, 'patch-repair: 2 suggestions applied\n'],
    ['SIGINT', new InterruptedError('SIGINT'), 130, 'patch-repair: interrupted by SIGINT\n'],
    ['SIGTERM', new InterruptedError('SIGTERM'), 143, 'patch-repair: interrupted by SIGTERM\n'],
  ])('maps %s to its exit code and one line', async (_case, error, code, line) => {
    const { dot } = minimalProject();
    const d = deps(dot, { run: () => Promise.reject(error) });
    expect(await main([], d)).toBe(code);
    expect(d.seen.err).toBe(line);
  });

  it('reports anything else as an internal error with its stack, exit 1', async () => {
    const { dot } = minimalProject();
    const d = deps(dot, { run: () => Promise.reject(new TypeError('x is undefined')) });
    expect(await main([], d)).toBe(1);
    expect(d.seen.err).toMatch(/^patch-repair: internal error: this is a bug in patch-repair; please report it/);
    expect(d.seen.err).toContain('TypeError: x is undefined\n    at ');
  });
});

describe('the installed binary', () => {
  // Built by `npm test` (pretest) from the sources; runs through its shebang like an npm bin.
  const binary = join(import.meta.dirname, '../../dist/cli.js');

  it('is executable and maps a bad hotspot type to exit 2 with one line', async () => {
    const { dot } = minimalProject();
    const outcome = await runProcess({ command: binary, args: ['-ht', 'hot'], cwd: dot });
    expect(outcome).toMatchObject({
      kind: 'exited',
      exitCode: 2,
      stdout: '',
      stderr: "patch-repair: --hotspot-types: expected a comma-separated list of yes, no, maybe; got 'hot'\n",
    });
  });

  it('prints help and exits 0', async () => {
    const outcome = await runProcess({ command: binary, args: ['--help'], cwd: '/' });
    expect(outcome).toMatchObject({ kind: 'exited', exitCode: 0, stderr: '' });
    expect(outcome.kind === 'exited' && outcome.stdout).toContain('-ht, --hotspot-types <list>');
  });
});
