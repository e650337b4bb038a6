// --check-run through the built CLI: real gcc builds, real runs of execute.sh, the scripted agent
// answering first with a repair that races and then with the right one, after the built-in
// repairer's candidate was dropped at check 7.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, processesIn, readEvents, readResults, runCli } from '../helpers/cli.js';
import { isRunning } from '../helpers/process-state.js';
import { scriptedCalls, writeScriptedDescriptor, type ScriptedReply } from '../helpers/scripted-agent.js';
import {
  answerText,
  LAST_C,
  LAST_RIGHT,
  LAST_TWICE,
  RACE_C,
  RACE_LOOP_LINE,
  RACY,
  writeRunProject,
  type RunProjectFiles,
} from '../helpers/run-project-files.mjs';

const BROKEN = '    #pragma omp parallel for shared(a,tmp_var7) private(t)';
const RIGHT = '    #pragma omp parallel for shared(a) private(t)';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

async function project(files: Partial<RunProjectFiles> = {}) {
  const written = await writeRunProject({ mainC: RACE_C, loopLine: RACE_LOOP_LINE, generated: BROKEN, ...files });
  folders.push(written.root);
  return written;
}

async function agent(root: string, replies: ScriptedReply[]) {
  return writeScriptedDescriptor({ dir: path.join(root, '..', `${path.basename(root)}-agent`), replies });
}

describe('--check-run', () => {
  it('drops a built-in repair that runs differently, tells the agent why, rejects its racy repair and accepts the right one', async () => {
    const { root, dot } = await project({ mainC: LAST_C, generated: LAST_TWICE });
    const { descriptorFile, stateFile } = await agent(root, [
      answerText(root, LAST_C, RACE_LOOP_LINE, RACY),
      answerText(root, LAST_C, RACE_LOOP_LINE, LAST_RIGHT),
    ]);
    folders.push(path.dirname(descriptorFile));
    const run = await runCli(dot, [
      '--dot-dp-path',
      dot,
      '--backend',
      descriptorFile,
      '--check-run',
      '--run-threads',
      '2',
    ]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);

    const calls = await scriptedCalls(stateFile);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.prompt).toContain('## What the built-in repairer tried');
    expect(calls[0]!.prompt).toContain(
      'The built-in repairer (keep-strongest-data-sharing) fixed the compiler errors with the directive below',
    );
    expect(calls[0]!.prompt).toContain('```\n#pragma omp parallel for shared(a) reduction(+:t)\n```');
    expect(calls[0]!.prompt).toContain(
      'at 2 threads, run 1 of 3: line 3: `last 598.000000` expected, `last 896.000000` got\nAt 1 thread the output matches.',
    );
    expect(calls[1]!.prompt).toContain('"runs" check');
    expect(calls[1]!.prompt).not.toContain('What the built-in repairer tried');
    expect(calls[1]!.prompt).toMatch(
      /at 2 threads, run 1 of 3: line 2: `sum 90000\.000000` expected, `sum \d+\.\d+` got\nAt 1 thread the output matches\./,
    );

    const results = readResults(dot);
    expect(results.suggestions[0]).toMatchObject({
      status: 'repaired',
      attempts: 2,
      accepted_attempt: 3,
      builtin: {
        tries: 1,
        accepted: false,
        declined: expect.stringMatching(
          /^rejected at runs: .*\nat 2 threads, run 1 of 3: line 3: `last 598\.000000` expected/s,
        ),
      },
      run_check: { threads: 2, repeats: 3, verdict: 'same', first_difference: null },
    });
    expect(results.run.run_reference).toMatchObject({ noise_lines: 0 });
    expect(results.run.run_reference!.seconds).toBeGreaterThan(0);
    expect(results.run.funnel).toEqual([
      expect.objectContaining({ tier: 'builtin', answered: 1, builds: 1, runs_same: 0, written: 0 }),
      expect.objectContaining({ tier: 'agent', answered: 2, builds: 2, runs_same: 1, written: 1 }),
    ]);
    for (const attempt of ['1', '2']) {
      const verdict = JSON.parse(
        readFileSync(path.join(dot, 'patch_repair', 'attempts', '1', attempt, 'verdict.json'), 'utf8'),
      );
      expect(verdict).toMatchObject({ outcome: 'rejected', rejected_by: 'runs' });
    }
    const written = readFileSync(path.join(dot, 'patch_generator', '1', '1.patch'), 'utf8');
    expect(written).toContain('lastprivate(t)');
    expect(written).not.toContain('reduction');
    expect(run.stdout).toMatch(/→ builds 2 → runs the same 1 → written 1/);
    expect(run.stdout).toContain('Runs the same (--check-run: execute.sh at 1 and 2 threads, 3 runs at 2): 1 repair');

    const show = await runCli(dot, ['show', '--dot-dp-path', dot, '1']);
    expect(show.stdout).toContain('Runs (--check-run, execute.sh at 1 and 2 threads, 3 run(s) at 2): same');
  });

  it('keeps the verdict and first difference of the candidate it rejected in the record of a suggestion left unrepaired', async () => {
    const { root, dot } = await project({ mainC: LAST_C, generated: LAST_TWICE });
    const { descriptorFile } = await agent(root, [answerText(root, LAST_C, RACE_LOOP_LINE, RACY)]);
    folders.push(path.dirname(descriptorFile));
    const run = await runCli(dot, [
      '--dot-dp-path',
      dot,
      '--backend',
      descriptorFile,
      '--no-builtin',
      '--prompts',
      '1',
      '--retries',
      '0',
      '--check-run',
      '--run-threads',
      '2',
    ]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    const [record] = readResults(dot).suggestions;
    expect(record).toMatchObject({ status: 'failed', run_check: { threads: 2, repeats: 3, verdict: 'differs' } });
    expect(record!.run_check!.first_difference).toMatch(
      /^at 2 threads, run 1 of 3: line 2: `sum 90000\.000000` expected/,
    );
    const verdict = JSON.parse(
      readFileSync(path.join(dot, 'patch_repair', 'attempts', '1', '1', 'verdict.json'), 'utf8'),
    );
    expect(verdict).toMatchObject({ rejected_by: 'runs', run_check: record!.run_check });
  });

  it('all: reports a suggestion that builds as generated but races, and leaves it ok', async () => {
    const { dot } = await project({ generated: RACY, layout: 'shared' });
    const run = await runCli(dot, [
      '--dot-dp-path',
      dot,
      '--backend',
      'builtin',
      '--check-run',
      'all',
      '--run-threads',
      '2',
      '--run-repeats',
      '2',
    ]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const [record] = readResults(dot).suggestions;
    expect(record).toMatchObject({ status: 'ok', run_check: { threads: 2, repeats: 2, verdict: 'differs' } });
    expect(record!.run_check!.first_difference).toMatch(
      /^at 2 threads, run 1 of 2: line 2: `sum 90000\.000000` expected/,
    );
    expect(run.stdout).toContain('Build as generated but do not run the same: 1 (1: differs)');
  });

  it('refuses before any repair when the reference run fails, with one line and exit 3', async () => {
    const { root, dot } = await project({ execute: '#!/bin/sh\necho "Please fill in execute.sh"\nexit 1\n' });
    const { descriptorFile, stateFile } = await agent(root, [answerText(root, RACE_C, RACE_LOOP_LINE, RIGHT)]);
    folders.push(path.dirname(descriptorFile));
    const run = await runCli(dot, ['--dot-dp-path', dot, '--backend', descriptorFile, '--no-builtin', '--check-run']);
    expect(run.exitCode).toBe(3);
    expect(
      run.stderr
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('patch-repair:')),
    ).toEqual([
      `patch-repair: --check-run: ${dot}/project/configs/tiny/execute.sh: the project without any suggestion exits with code 1 from execute.sh; its last line: Please fill in execute.sh; fix execute.sh (DiscoPoP's placeholder exits 1) so that it runs the program and exits 0`,
    ]);
    expect(await scriptedCalls(stateFile)).toEqual([]);
    expect(readResults(dot).suggestions[0]).toMatchObject({ status: 'skipped', run_check: { verdict: 'not-run' } });
  });

  it('on SIGINT during a run, ends the run and everything it started, patch_generator/ untouched', async () => {
    const marks = mkdtempSync(path.join(tmpdir(), 'pr-runs-marks-'));
    const workDir = mkdtempSync(path.join(tmpdir(), 'pr-runs-work-'));
    folders.push(marks, workDir);
    const execute = `#!/bin/sh\n"$DP_PROJECT_ROOT_DIR/demo"\nif [ "$OMP_NUM_THREADS" != 1 ]; then sleep 600 & echo $! > "${marks}/sleep.pid"; wait; fi\n`;
    const { root, dot } = await project({ execute });
    const generated = readFileSync(path.join(dot, 'patch_generator', '1', '1.patch'), 'utf8');
    const { descriptorFile } = await agent(root, [answerText(root, RACE_C, RACE_LOOP_LINE, RIGHT)]);
    folders.push(path.dirname(descriptorFile));
    const child = spawn(
      process.execPath,
      [CLI, '--dot-dp-path', dot, '--backend', descriptorFile, '--no-builtin', '--check-run', '--work-dir', workDir],
      { stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const pidFile = path.join(marks, 'sleep.pid');
    for (let waited = 0; !existsSync(pidFile) || readFileSync(pidFile, 'utf8').trim() === ''; waited += 100) {
      if (waited > 120_000) throw new Error('the N-thread run never started');
      await sleep(100);
    }
    const sleeper = Number(readFileSync(pidFile, 'utf8'));
    expect(isRunning(sleeper)).toBe(true);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(isRunning(sleeper)).toBe(false);
    expect(processesIn(workDir)).toEqual([]);
    expect(readFileSync(path.join(dot, 'patch_generator', '1', '1.patch'), 'utf8')).toBe(generated);
    expect(existsSync(path.join(dot, 'patch_repair', 'backups', '1'))).toBe(false);
    expect(readResults(dot).suggestions[0]).toMatchObject({ status: 'skipped', reason: 'interrupted' });
    expect(readEvents(dot).some((e) => e.type === 'run-reference')).toBe(true);
  });
});
