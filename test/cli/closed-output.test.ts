// A closed stdout or stderr (`patch-repair … | head -1`, a terminal that went away) is only a view
// that stopped: the run itself must finish, write results.json, remove its scratch folder and exit
// with the code it would have had. The cases run concurrently, each on its own copy of the demo.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { useFixture } from '../helpers/fixture.js';

const CLI = path.resolve('dist/cli.js');
const hasScript = spawnSync('script', ['--version']).status === 0;
if (!hasScript) console.warn('closed-output: the terminal case is skipped: script(1) is not installed');

async function until(condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function workDir(test: TestContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pr-closed-work-'));
  test.onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Runs the CLI and closes the read ends of its output: both at once, or each after its first
 * chunk (the live lines on stderr then stop early in the run, the summary on stdout after its start).
 */
function runClosingOutput(
  args: string[],
  o: { closeStdout: 'at-once' | 'after-first-line'; env?: Record<string, string> },
): Promise<{ code: number | null; signal: string | null }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...o.env },
  });
  for (const stream of [child.stdout, child.stderr]) {
    if (o.closeStdout === 'at-once') stream.destroy();
    else stream.once('data', () => stream.destroy());
  }
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
}

function assertFinishedCleanly(dotDir: string, work: string, expected: Record<string, string>): void {
  const results = JSON.parse(readFileSync(path.join(dotDir, 'patch_repair', 'results.json'), 'utf8'));
  expect(
    Object.fromEntries(
      Object.values(results.suggestions as Record<string, { id: string; status: string }>).map((s) => [s.id, s.status]),
    ),
  ).toEqual(expected);
  expect(results.run.exit_code).toBe(0);
  expect(readdirSync(work), 'scratch folder left behind').toEqual([]);
  expect(existsSync(path.join(dotDir, 'patch_repair', 'run.lock')), 'lock left behind').toBe(false);
  const scratch = JSON.parse(readFileSync(path.join(dotDir, 'patch_repair', 'scratch.json'), 'utf8'));
  expect(scratch.runs).toEqual([]);
}

describe.concurrent('closed output streams', () => {
  it('stdout and stderr closed after their first line (| head -1): every repair is still made and recorded', async (test) => {
    const { dotDir } = useFixture('demo', test);
    const work = workDir(test);
    const run = await runClosingOutput(
      ['--dot-dp-path', dotDir, '--backend', 'builtin', '-j', '1', '-s', '2,9', '--work-dir', work],
      {
        closeStdout: 'after-first-line',
      },
    );
    expect(run).toEqual({ code: 0, signal: null });
    assertFinishedCleanly(dotDir, work, { '2': 'repaired', '9': 'repaired' });
  });

  it('stdout and stderr closed from the start: the run completes with its own exit code, --progress-lines included', async (test) => {
    const { dotDir } = useFixture('demo', test);
    const work = workDir(test);
    const run = await runClosingOutput(
      [
        '--dot-dp-path',
        dotDir,
        '--backend',
        'builtin',
        '-j',
        '1',
        '-s',
        '1,2',
        '--work-dir',
        work,
        '--dry-run',
        '--progress-lines',
      ],
      {
        closeStdout: 'at-once',
      },
    );
    expect(run).toEqual({ code: 0, signal: null });
    assertFinishedCleanly(dotDir, work, { '1': 'ok', '2': 'repaired' });
  });

  it('the terminal hanging up (SIGHUP) mid-run takes only the output away: the run finishes as under nohup', async (test) => {
    const { dotDir } = useFixture('demo', test);
    const work = workDir(test);
    const run = await runClosingOutput(
      ['--dot-dp-path', dotDir, '--backend', 'builtin', '-j', '1', '-s', '2,9', '--work-dir', work],
      {
        closeStdout: 'at-once',
        env: { PATCH_REPAIR_FAULT: 'pipeline.after-discovery:SIGHUP' },
      },
    );
    expect(run).toEqual({ code: 0, signal: null });
    assertFinishedCleanly(dotDir, work, { '2': 'repaired', '9': 'repaired' });
  });

  it.runIf(hasScript)(
    'progress bars on a terminal that goes away mid-run: the run finishes and records everything',
    async (test) => {
      const { dotDir } = useFixture('demo', test);
      const work = workDir(test);
      const command = [
        process.execPath,
        CLI,
        '--dot-dp-path',
        dotDir,
        '--backend',
        'builtin',
        '-j',
        '1',
        '-s',
        '2,9',
        '--work-dir',
        work,
      ]
        .map((a) => `'${a}'`)
        .join(' ');
      // script(1) gives the run a real terminal (bars on); killing it closes that terminal under the run.
      // Without CI in the environment: CI=true (as in .ci/run) turns the bars off on purpose.
      const { CI: _ci, ...env } = process.env;
      const terminal = spawn('script', ['-qfec', `exec ${command}`, '/dev/null'], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env,
      });
      let screen = '';
      terminal.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
      // Closed once the bars are up (cli-progress hides the cursor first), while builds are running.
      await until(() => screen.includes('\x1b[?25l'));
      const results = path.join(dotDir, 'patch_repair', 'results.json');
      const finishedBeforeClose = existsSync(results);
      terminal.kill('SIGKILL');
      expect(finishedBeforeClose, 'the terminal must close while the run is still going').toBe(false);
      await until(() => existsSync(results) && !existsSync(path.join(dotDir, 'patch_repair', 'run.lock')));
      assertFinishedCleanly(dotDir, work, { '2': 'repaired', '9': 'repaired' });
    },
  );

  it('an input error with stderr closed still exits 2', async () => {
    const run = await runClosingOutput(['--dot-dp-path', '/nonexistent/.discopop'], { closeStdout: 'at-once' });
    expect(run).toEqual({ code: 2, signal: null });
  });
});
