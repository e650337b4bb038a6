// The agent tier end to end through the built CLI: the scripted agent (a descriptor over a small
// script, run by the same runner and parser as claude) answers the demo's broken suggestions, with
// real gcc verifying; the budget rules are checked on what results.json and the agent saw.
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type RunResults, type SuggestionRecord } from '../../src/formats/results.js';
import { useFixture } from '../helpers/fixture.js';
import { scriptedCalls, writeScriptedDescriptor, type ScriptedReply } from '../helpers/scripted-agent.js';
import { CLI, readResults, runCli } from '../helpers/cli.js';
import { runProcess } from '../../src/process.js';

const cli = (dotDir: string, args: string[]) => runCli(dotDir, ['--dot-dp-path', dotDir, ...args]);

function record(file: RunResults, id: string): SuggestionRecord {
  return file.suggestions.find((s) => s.id === id)!;
}

/** The built-in repairer's verified patch for each suggestion, as an agent would answer for `root`. */
async function correctAnswers(root: string, ids: string[]): Promise<Record<string, string>> {
  const reference = useFixture('demo');
  const run = await cli(reference.dotDir, ['--backend', 'builtin', '-s', ids.join(',')]);
  expect(run.exitCode, run.stdout).toBe(0);
  const answers: Record<string, string> = {};
  for (const id of ids) {
    const dir = path.join(reference.dotDir, 'patch_generator', id);
    const diffs = readdirSync(dir).map((name) =>
      readFileSync(path.join(dir, name), 'utf8').replaceAll(reference.root, root),
    );
    answers[id] =
      `Here is the corrected patch set.\n\n${diffs.map((diff) => `\`\`\`diff\n${diff}\`\`\``).join('\n\n')}\n`;
  }
  return answers;
}

async function agentRun(dotDir: string, replies: ScriptedReply[], args: string[]) {
  const { descriptorFile, stateFile } = await writeScriptedDescriptor({
    dir: path.join(path.dirname(dotDir), '..', 'agent'),
    replies,
  });
  // One repair at a time: these tests pin the serial order of calls; concurrency.test.ts runs several.
  const run = await cli(dotDir, ['--backend', descriptorFile, '--no-builtin', '--agent-jobs', '1', ...args]);
  return { run, calls: await scriptedCalls(stateFile) };
}

describe('the agent tier through the CLI', () => {
  it('repairs with follow-ups, repeats unanswered calls in place and counts them apart', async () => {
    const { root, dotDir } = useFixture('demo');
    const fix = await correctAnswers(root, ['3', '5']);
    const { run, calls } = await agentRun(
      dotDir,
      [{ noAnswer: 'unreachable' }, 'I would remove acc from the private clause.', fix['3']!, fix['5']!],
      ['-s', '3,5'],
    );
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);

    const file = readResults(dotDir);
    expect(record(file, '3')).toMatchObject({
      status: 'repaired',
      attempts: 3,
      unanswered: 1,
      accepted_attempt: 3,
      backend: 'scripted',
      changed_files: ['5'],
    });
    expect(record(file, '5')).toMatchObject({ status: 'repaired', attempts: 1, unanswered: 0, accepted_attempt: 1 });
    expect(file.suggestions.every((s) => s.builtin.tries === 0)).toBe(true);

    // The unanswered call was repeated as a fresh call; the rejected answer got a follow-up in the same conversation.
    expect(calls.map((c) => c.resumed === null)).toEqual([true, true, false, true]);
    expect(calls[2]!.prompt).toContain('"extraction" check');
    expect(calls[2]!.prompt).not.toContain('## Generated patch set');
    // The agent ran in an empty directory of the run's own, gone afterwards, never in the project.
    for (const call of calls) {
      expect(call.cwd.startsWith(root)).toBe(false);
      expect(existsSync(call.cwd)).toBe(false);
    }
    const verdict = JSON.parse(
      readFileSync(path.join(dotDir, 'patch_repair', 'attempts', '3', '2', 'verdict.json'), 'utf8'),
    );
    expect(verdict).toMatchObject({ outcome: 'rejected', rejected_by: 'extraction' });
  });

  it('stops every agent call after a fatal error, skips the rest and exits 4', async () => {
    const { dotDir } = useFixture('demo');
    const { run, calls } = await agentRun(dotDir, [{ fatal: 'auth' }], ['-s', '3,5']);
    expect(run.exitCode).toBe(4);
    expect(calls).toHaveLength(1);
    const file = readResults(dotDir);
    expect(record(file, '3')).toMatchObject({ status: 'skipped', attempts: 1, unanswered: 1 });
    expect(record(file, '5')).toMatchObject({ status: 'skipped', attempts: 0 });
    expect(record(file, '5').reason).toMatch(/auth/);
  });

  it('stops asking an endpoint that stayed unreachable for three suggestions in a row', async () => {
    const { dotDir } = useFixture('demo');
    const { run, calls } = await agentRun(dotDir, [{ noAnswer: 'unreachable' }], ['--agent-error-retries', '1']);
    expect(run.exitCode).toBe(1);
    expect(calls).toHaveLength(6);
    const file = readResults(dotDir);
    const unreachable = file.suggestions.filter((s) => s.status === 'agent_unreachable');
    expect(unreachable.map((s) => s.attempts)).toEqual([2, 2, 2, 0, 0, 0]);
    expect(file.run.endpoint_down).toBe(true);
    expect(run.stdout).toContain('Agent unreachable: 6 (no answer; not a failed repair)');
    expect(run.stdout).toMatch(/endpoint looked down/);
    // Only suggestions that were sent somewhere are announced as being repaired.
    for (const [index, s] of unreachable.entries()) {
      const announced = `Repairing suggestion ${s.id} (${index + 1} of 6)`;
      if (s.attempts > 0) expect(run.stderr).toContain(announced);
      else {
        expect(run.stderr).not.toContain(announced);
        expect(run.stderr).toContain(
          `Suggestion ${s.id} (${index + 1} of 6): no repair tried: agent unreachable for 3 suggestions in a row; no further calls\n`,
        );
      }
    }
  });

  it('show of a run killed after the endpoint went down says the endpoint looked down', async () => {
    const { dotDir } = useFixture('demo');
    const { descriptorFile } = await writeScriptedDescriptor({
      dir: path.join(path.dirname(dotDir), '..', 'agent'),
      replies: [{ noAnswer: 'unreachable' }],
    });
    // Killed as the fourth suggestion settles: the endpoint counted as down after the third.
    const args = ['--backend', descriptorFile, '--no-builtin', '--agent-jobs', '1', '--agent-error-retries', '0'];
    const killed = await runProcess({
      command: process.execPath,
      args: [CLI, '--dot-dp-path', dotDir, ...args],
      cwd: path.dirname(dotDir),
      env: { PATCH_REPAIR_FAULT: 'pipeline.after-repair@4' },
      timeoutMs: 240_000,
    });
    expect(killed.kind, killed.kind === 'exited' ? killed.stdout + killed.stderr : '').toBe('signaled');
    expect(existsSync(path.join(dotDir, 'patch_repair', 'results.json'))).toBe(false);
    const show = await runCli(dotDir, ['show', '--dot-dp-path', dotDir]);
    expect(show.stdout).toContain('did not finish');
    expect(show.stdout).toMatch(/endpoint looked down/);
  });
});

it('--max-repairs stops after that many repairs and skips the rest without failing the run', async () => {
  const { dotDir } = useFixture('demo');
  const run = await cli(dotDir, ['--backend', 'builtin', '--max-repairs', '2']);
  expect(run.exitCode, run.stdout).toBe(0);
  const file = readResults(dotDir);
  expect(file.run.counts).toMatchObject({ repaired: 2, skipped: 5 });
  expect(file.suggestions.filter((s) => s.reason?.startsWith('--max-repairs'))).toHaveLength(4);
});

// Only the built-in repairer reads a failing file's preprocessed translation unit: with
// --no-builtin no compiler is run with -E, so an agent-only run pays for no extra compile.
it('preprocesses failing sources for the built-in repairer only, not with --no-builtin', async () => {
  const bin = mkdtempSync(path.join(tmpdir(), 'pr-gcc-log-'));
  const log = path.join(bin, 'preprocessed.log');
  writeFileSync(
    path.join(bin, 'gcc'),
    `#!/bin/sh\ncase " $* " in *" -E "*) echo "$*" >> '${log}';; esac\nexec /usr/bin/gcc "$@"\n`,
  );
  chmodSync(path.join(bin, 'gcc'), 0o755);
  const env = { PATH: [bin, process.env['PATH']].join(path.delimiter) };
  const preprocessed = () =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
      : [];

  const builtin = useFixture('demo');
  expect(
    (await runCli(builtin.dotDir, ['--dot-dp-path', builtin.dotDir, '--backend', 'builtin', '-s', '3'], { env }))
      .exitCode,
  ).toBe(0);
  expect(preprocessed().length).toBeGreaterThan(0);
  writeFileSync(log, '');

  const { root, dotDir } = useFixture('demo');
  const fix = await correctAnswers(root, ['3']);
  const { descriptorFile } = await writeScriptedDescriptor({
    dir: path.join(path.dirname(dotDir), '..', 'agent'),
    replies: [fix['3']!],
  });
  const run = await runCli(dotDir, ['--dot-dp-path', dotDir, '--backend', descriptorFile, '--no-builtin', '-s', '3'], {
    env,
  });
  expect(run.exitCode, run.stdout + run.stderr).toBe(0);
  expect(record(readResults(dotDir), '3')).toMatchObject({ status: 'repaired', backend: 'scripted' });
  expect(preprocessed()).toEqual([]);
});

describe('the run names its agent', () => {
  it('at the default log level, before the first repair: with no agent CLI on PATH the built-in repairer runs alone', async () => {
    const { dotDir } = useFixture('demo');
    const bin = path.dirname(process.execPath);
    // gcc, make and patch live in /usr/bin; node's own folder holds no agent CLI here.
    const run = await runCli(dotDir, ['--dot-dp-path', dotDir, '-s', '3'], {
      env: { PATH: ['/usr/bin', '/bin', bin].join(path.delimiter) },
    });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const lines = run.stderr.split('\n');
    const named = lines.indexOf(
      'no agent CLI found on PATH (looked for claude, opencode); the built-in repairer runs alone',
    );
    expect(named, run.stderr).toBeGreaterThanOrEqual(0);
    expect(named).toBeLessThan(lines.indexOf('Repairing suggestion 3 (1 of 1)'));
    expect(record(readResults(dotDir), '3')).toMatchObject({ status: 'repaired', backend: 'builtin' });
  });
});
