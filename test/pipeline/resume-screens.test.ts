// --resume keeps passed screens (issue 47, item 5): a run killed after a suggestion's screen passed
// and before its confirmation build is resumed without compiling that suggestion's unit again; its
// confirmation links the object the stopped run kept. A gcc in front of the real one on PATH logs
// every unit it compiles with the digest of the source it read, so "compiled twice" is counted,
// not assumed. (`npm run build` first.)
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runProcess } from '../../src/process.js';
import { RunStateSchema } from '../../src/formats/resume-state.js';
import { PROBE_IDENTIFIER } from '../../src/build/probe.js';
import { CLI, readEvents, readResults } from '../helpers/cli.js';
import { useFixture } from '../helpers/fixture.js';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/**
 * A `gcc` that appends `<md5 of the source> <source>` for each C operand, then runs the real gcc.
 * The OpenMP probe's build is left out: it compiles a source of its own, once a run.
 */
function countingCompiler(dir: string, log: string): string {
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(
    path.join(bin, 'gcc'),
    `#!/bin/sh
for operand in "$@"; do
  case "$operand" in
    *.c) grep -q ${PROBE_IDENTIFIER} "$operand" || echo "$(md5sum < "$operand" | cut -c1-32) $operand" >> '${log}' ;;
  esac
done
exec /usr/bin/gcc "$@"
`,
  );
  chmodSync(path.join(bin, 'gcc'), 0o755);
  return bin;
}

/** Each compile the log holds: the source's digest and its path as the build named it. */
const compiles = (log: string) =>
  (existsSync(log) ? readFileSync(log, 'utf8') : '')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [digest, source] = line.split(' ') as [string, string];
      return { digest, source };
    });

it('a run killed after a passed screen is resumed without compiling that unit again', async (test) => {
  const { root, dotDir } = useFixture('demo', test);
  const dir = mkdtempSync(path.join(tmpdir(), 'pr-resume-screens-'));
  test.onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const log = path.join(dir, 'compiles.log');
  const env = { PATH: `${countingCompiler(dir, log)}:${process.env.PATH}` };
  // Suggestions 0 (stencil.c) and 1 (dot.c) build as generated: both screens pass, one at a time.
  const args = [CLI, '--dot-dp-path', dotDir, '--backend', 'builtin', '-s', '0,1', '-j', '1'];
  const run = (extra: string[], more: Record<string, string> = {}) =>
    runProcess({
      command: process.execPath,
      args: [...args, ...extra],
      cwd: root,
      env: { ...env, ...more },
      timeoutMs: 240_000,
    });

  const killed = await run([], { PATCH_REPAIR_FAULT: 'discovery.after-screen-passed@1' });
  expect(killed.kind, JSON.stringify(killed)).toBe('signaled');
  const state = RunStateSchema.parse(
    JSON.parse(readFileSync(path.join(dotDir, 'patch_repair', 'run-state.json'), 'utf8')),
  );
  const [screenedId, ...others] = Object.keys(state.screened);
  expect(others).toEqual([]);
  expect(Object.keys(state.builds)).toEqual([]);
  const { objects } = state.screened[screenedId!]!;
  expect(objects.map((o) => o.rel)).toEqual([screenedId === '0' ? 'src/stencil.o' : 'src/dot.o']);
  expect(existsSync(objects[0]!.from)).toBe(true);

  // The screened unit's patched source: compiled by the stopped run, not as the user's tree has it.
  const unit = screenedId === '0' ? 'src/stencil.c' : 'src/dot.c';
  const unpatched = md5(readFileSync(path.join(root, unit), 'utf8'));
  const before = compiles(log);
  const screenedCompiles = before.filter((c) => c.source === unit && c.digest !== unpatched);
  expect(screenedCompiles, JSON.stringify(before)).toHaveLength(1);
  const patched = screenedCompiles[0]!.digest;

  const resumed = await run(['--resume']);
  expect(resumed.kind === 'exited' && resumed.exitCode, JSON.stringify(resumed)).toBe(0);
  expect(resumed.kind === 'exited' && resumed.stderr).toMatch(/1 passed screen\(s\) reused/);
  const after = compiles(log).slice(before.length);
  // The resumed run compiled its reference build and the other suggestion's unit, never this one.
  expect(after.filter((c) => c.digest === patched)).toEqual([]);
  expect(after.some((c) => c.source === unit && c.digest === unpatched)).toBe(true);
  const results = readResults(dotDir);
  expect(Object.fromEntries(results.suggestions.map((s) => [s.id, s.status]))).toEqual({ '0': 'ok', '1': 'ok' });
  expect(
    readEvents(dotDir)
      .filter((e) => e.type === 'screened')
      .map((e) => e.type === 'screened' && e.id),
  ).toEqual(expect.arrayContaining([screenedId]));
  // Once discovery finished, no run needs the kept objects.
  expect(existsSync(path.join(dotDir, 'patch_repair', 'screened'))).toBe(false);
});
