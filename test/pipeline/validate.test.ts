// --check-run with the configuration's validate.sh (and compile_validate.sh): real gcc builds, real
// runs, the scripted agent. Each case works on its own copy, so they run concurrently.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, processesIn, readResults, runCli } from '../helpers/cli.js';
import { isRunning } from '../helpers/process-state.js';
import { scriptedCalls, writeScriptedDescriptor, type ScriptedReply } from '../helpers/scripted-agent.js';
import { snapshotTree } from '../helpers/tree-snapshot.js';
import {
  answerText,
  RACE_C,
  RACE_LOOP_LINE,
  RACY,
  writeRunProject,
  type RunProjectFiles,
} from '../helpers/run-project-files.mjs';

const BROKEN = '    #pragma omp parallel for shared(a,tmp_var7) private(t)';
const RIGHT = '    #pragma omp parallel for shared(a) private(t)';
/** execute.sh keeps the results in a file and prints the same line whatever they are: only validate.sh sees them. */
const EXECUTE_QUIET = '#!/bin/sh\n"$DP_PROJECT_ROOT_DIR/demo" > "$DP_PROJECT_ROOT_DIR/out.txt"\necho done\n';
const VALIDATE_SUM =
  '#!/bin/sh\ncat "$DP_PROJECT_ROOT_DIR/out.txt"\ngrep -qx "sum 90000.000000" "$DP_PROJECT_ROOT_DIR/out.txt" || { echo "wrong sum"; exit 1; }\n';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

async function project(files: Partial<RunProjectFiles> & { validate: string; compileValidate?: string }) {
  const written = await writeRunProject({ mainC: RACE_C, loopLine: RACE_LOOP_LINE, generated: BROKEN, ...files });
  folders.push(written.root);
  const configs = path.join(written.dot, 'project', 'configs');
  writeFileSync(path.join(configs, 'tiny', 'validate.sh'), files.validate);
  chmodSync(path.join(configs, 'tiny', 'validate.sh'), 0o755);
  // The shared one, which DiscoPoP takes when the configuration has none of its own.
  if (files.compileValidate) writeFileSync(path.join(configs, 'compile_validate.sh'), files.compileValidate);
  return written;
}

async function agent(root: string, replies: ScriptedReply[]) {
  const written = await writeScriptedDescriptor({
    dir: path.join(root, '..', `${path.basename(root)}-agent`),
    replies,
  });
  folders.push(path.dirname(written.descriptorFile));
  return written;
}

function temp(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  folders.push(dir);
  return dir;
}

async function waitForPid(file: string): Promise<number> {
  for (let waited = 0; !existsSync(file) || readFileSync(file, 'utf8').trim() === ''; waited += 100) {
    if (waited > 120_000) throw new Error('validate.sh never started at 2 threads');
    await sleep(100);
  }
  return Number(readFileSync(file, 'utf8'));
}

describe.concurrent('--check-run with validate.sh', () => {
  it('rejects as invalid a candidate that prints what the reference prints but fails validate.sh, tells the agent its last lines, accepts the right one', async () => {
    const { root, dot } = await project({ execute: EXECUTE_QUIET, validate: VALIDATE_SUM });
    const { descriptorFile, stateFile } = await agent(root, [
      answerText(root, RACE_C, RACE_LOOP_LINE, RACY),
      answerText(root, RACE_C, RACE_LOOP_LINE, RIGHT),
    ]);
    const run = await runCli(dot, [
      '--dot-dp-path',
      dot,
      '--backend',
      descriptorFile,
      '--no-builtin',
      '--check-run',
      '--run-threads',
      '2',
    ]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);

    const calls = await scriptedCalls(stateFile);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.prompt).toContain(
      "but the configuration's validation (validate.sh checks a run's results, on the build compile_validate.sh makes when there is one) does not pass:",
    );
    expect(calls[1]!.prompt).toMatch(
      /at 2 threads, run 1 of 3: validate\.sh exits with code 1; the last 3 lines of its output:\niterations 300\nsum (?!90000\.000000)\d+\.\d+\nwrong sum\nAt 1 thread the output matches\./,
    );

    const verdict = JSON.parse(
      readFileSync(path.join(dot, 'patch_repair', 'attempts', '1', '1', 'verdict.json'), 'utf8'),
    );
    expect(verdict).toMatchObject({
      outcome: 'rejected',
      rejected_by: 'runs',
      run_check: { verdict: 'invalid', validate: { runs: 2, passed: false, built_by: 'compile.sh' } },
    });
    const [record] = readResults(dot).suggestions;
    expect(record).toMatchObject({
      status: 'repaired',
      accepted_attempt: 2,
      run_check: { verdict: 'same', validate: { runs: 4, passed: true, built_by: 'compile.sh' } },
    });
    expect(readFileSync(path.join(dot, 'patch_generator', '1', '1.patch'), 'utf8')).toContain(RIGHT.trim());

    const show = await runCli(dot, ['show', '--dot-dp-path', dot, '1']);
    expect(show.stdout).toMatch(/validate\.sh passed \(4 runs, \d+\.\d s\)/);
    expect((await runCli(dot, ['report', '--dot-dp-path', dot])).exitCode).toBe(0);
    expect(readFileSync(path.join(dot, 'patch_repair', 'report.html'), 'utf8')).toMatch(
      /<p class="usage" data-validate="passed">validate\.sh passed \(4 runs/,
    );
  });

  it("builds with compile_validate.sh what validate.sh checks, and runs compile.sh's build again before the next execute.sh run", async () => {
    // The validation build, into the same binary as DiscoPoP's -DVALIDATE example, prints something
    // else entirely: an execute.sh run of it would differ from the reference on every line.
    const mainC = RACE_C.replace(
      '    printf("iterations',
      '#ifdef VALIDATE\n    printf("validate build\\n");\n    return 0;\n#endif\n    printf("iterations',
    );
    const { dot } = await project({
      mainC,
      compileValidate:
        '#!/bin/sh\n$CC $CFLAGS -DVALIDATE -o "$DP_PROJECT_ROOT_DIR/demo" "$DP_PROJECT_ROOT_DIR/src/main.c"\n',
      validate:
        '#!/bin/sh\n"$DP_PROJECT_ROOT_DIR/demo" | grep -qx "validate build" || { echo "not the validation build"; exit 1; }\n',
    });
    const run = await runCli(dot, [
      '--dot-dp-path',
      dot,
      '--backend',
      'builtin',
      '--check-run',
      '--run-threads',
      '2',
      '--run-repeats',
      '2',
    ]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(readResults(dot).suggestions[0]).toMatchObject({
      status: 'repaired',
      run_check: {
        verdict: 'same',
        first_difference: null,
        validate: { runs: 3, passed: true, built_by: 'compile_validate.sh' },
      },
    });
  });

  it('refuses before any repair when validate.sh rejects the reference, with one line and exit 3', async () => {
    const { root, dot } = await project({ validate: '#!/bin/sh\necho "checksum mismatch"\nexit 4\n' });
    const { descriptorFile, stateFile } = await agent(root, [answerText(root, RACE_C, RACE_LOOP_LINE, RIGHT)]);
    const run = await runCli(dot, ['--dot-dp-path', dot, '--backend', descriptorFile, '--no-builtin', '--check-run']);
    expect(run.exitCode).toBe(3);
    expect(
      run.stderr
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('patch-repair:')),
    ).toEqual([
      `patch-repair: --check-run: ${dot}/project/configs/tiny/validate.sh: after a run of the project without any suggestion, validate.sh exits with code 4; its last line: checksum mismatch; a validation that rejects the sequential program cannot tell a right repair from a wrong one, so fix it first`,
    ]);
    expect(await scriptedCalls(stateFile)).toEqual([]);
  });

  it('kills a validate.sh that hangs at --run-timeout, with its process group, and rejects the candidate as invalid', async () => {
    const marks = temp('pr-validate-marks-');
    const workDir = temp('pr-validate-work-');
    const { root, dot } = await project({
      validate: `#!/bin/sh\nif [ "$OMP_NUM_THREADS" != 1 ]; then sleep 600 & echo $! > "${marks}/sleep.pid"; wait; fi\n`,
    });
    const { descriptorFile } = await agent(root, [answerText(root, RACE_C, RACE_LOOP_LINE, RIGHT)]);
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
      '--run-timeout',
      '3',
      '--work-dir',
      workDir,
    ]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    const [record] = readResults(dot).suggestions;
    expect(record).toMatchObject({
      status: 'failed',
      run_check: { verdict: 'invalid', validate: { runs: 2, passed: false } },
    });
    expect(record!.run_check!.first_difference).toMatch(
      /^at 2 threads, run 1 of 3: validate\.sh runs over the --run-timeout of 3 s and was stopped/,
    );
    expect(isRunning(Number(readFileSync(path.join(marks, 'sleep.pid'), 'utf8')))).toBe(false);
    expect(processesIn(workDir)).toEqual([]);
  });

  it('on SIGINT during validate.sh, ends it and everything it started and leaves the user files as they were', async () => {
    const marks = temp('pr-validate-marks-');
    const workDir = temp('pr-validate-work-');
    const { root, dot } = await project({
      validate: `#!/bin/sh\nif [ "$OMP_NUM_THREADS" != 1 ]; then sleep 600 & echo $! > "${marks}/sleep.pid"; wait; fi\n`,
    });
    const { descriptorFile } = await agent(root, [answerText(root, RACE_C, RACE_LOOP_LINE, RIGHT)]);
    const before = snapshotTree(root, (rel) => rel.startsWith(path.join('.discopop', 'patch_repair')));
    const child = spawn(
      process.execPath,
      [CLI, '--dot-dp-path', dot, '--backend', descriptorFile, '--no-builtin', '--check-run', '--work-dir', workDir],
      { stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const sleeper = await waitForPid(path.join(marks, 'sleep.pid'));
    expect(isRunning(sleeper)).toBe(true);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(isRunning(sleeper)).toBe(false);
    expect(processesIn(workDir)).toEqual([]);
    expect(snapshotTree(root, (rel) => rel.startsWith(path.join('.discopop', 'patch_repair')))).toEqual(before);
    expect(readResults(dot).suggestions[0]).toMatchObject({ status: 'skipped', reason: 'interrupted' });
  });
});
