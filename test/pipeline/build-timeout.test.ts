// --build-timeout on this machine, through the built CLI: a hung compile.sh ends as a timeout with
// the output it wrote so far, its whole process tree is gone, and the timeout is recorded with the
// run's other options.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runProcess } from '../../src/process.js';
import { resultsOf } from '../../src/formats/results-document.js';
import { processesIn } from '../helpers/cli.js';
import { useFixture } from '../helpers/fixture.js';

const CLI = path.resolve('dist/cli.js');

async function cli(dotDir: string, args: string[]) {
  const outcome = await runProcess({
    command: process.execPath,
    args: [CLI, '--dot-dp-path', dotDir, ...args],
    cwd: dotDir,
    timeoutMs: 120_000,
  });
  if (outcome.kind !== 'exited') throw new Error(`patch-repair ${args.join(' ')}: ${outcome.kind}`);
  return outcome;
}

/** A demo copy whose compile.sh runs `shell` first, in the build's copy of the project. */
function hangingDemo(shell: string): { dotDir: string; work: string } {
  const { dotDir } = useFixture('demo');
  const script = path.join(dotDir, 'project', 'configs', 'tiny', 'compile.sh');
  writeFileSync(
    script,
    readFileSync(script, 'utf8').replace(
      'cd "$DP_PROJECT_ROOT_DIR" || exit 1\n',
      `cd "$DP_PROJECT_ROOT_DIR" || exit 1\n${shell}\n`,
    ),
  );
  const work = mkdtempSync(path.join(tmpdir(), 'pr-timeout-work-'));
  onTestFinished(() => rmSync(work, { recursive: true, force: true }));
  return { dotDir, work };
}

describe('--build-timeout', () => {
  it('ends a hung suggestion build as a timeout, records the option, and the other builds are unaffected', async () => {
    // Suggestion 1's directive in dot.c makes compile.sh print a line and then hang in a
    // grandchild. Its units compile, so it is the confirmation build carrying it that hangs first;
    // that build is split until suggestion 1's own build times out.
    const { dotDir, work } = hangingDemo(
      "grep -q 'shared(x,y)' src/dot.c && { echo 'compiling dot'; sleep 600 & wait; }",
    );
    const run = await cli(dotDir, ['--discover-only', '--build-timeout', '3', '--work-dir', work]);
    expect(run.exitCode, run.stderr).toBe(1);
    const results = resultsOf(JSON.parse(readFileSync(path.join(dotDir, 'patch_repair', 'results.json'), 'utf8')));
    expect(results.run.options).toMatchObject({ buildTimeoutS: 3 });
    const byId = Object.fromEntries(results.suggestions.map((s) => [s.id, s]));
    expect(byId['1']).toMatchObject({
      status: 'failed',
      error_class: 'other',
      first_error: 'compile.sh did not finish within 3 s and was stopped',
    });
    expect(byId['2']).toMatchObject({ status: 'failed', error_class: 'duplicate-data-sharing' });
    expect(byId['0']).toMatchObject({ status: 'ok' });
    expect(processesIn(work)).toEqual([]);
  }, 120_000);

  it('refuses a reference build that does not finish in time, quoting what it printed so far', async () => {
    const { dotDir, work } = hangingDemo("echo 'configuring: waiting for a licence server'; sleep 600");
    const run = await cli(dotDir, ['--discover-only', '--build-timeout', '2', '--work-dir', work]);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toContain('the reference build does not finish in time');
    expect(run.stderr).toContain('configuring: waiting for a licence server');
    expect(run.stderr).toContain('compile.sh did not finish within 2 s and was stopped');
    expect(processesIn(work)).toEqual([]);
  }, 120_000);
});
