// Issue 41 through the built CLI with real gcc and clang, GNU patch and make: fixtures/collapse
// holds the counter — `collapse(2)` over a nest with `rows++;` between the loops, which
// clang 14 builds and then counts 4096 rows instead of 64 at 1 and at 4 threads — and a perfectly
// nested `collapse(2)` that must stay as generated. Under clang the first is no longer `ok`: the
// static check fails it, the built-in repairer lowers the collapse, and the repaired program prints
// what the sequential one prints; without a repairer it is `failed` naming the statement; an agent
// answer keeping the collapse is rejected with the check's words as its follow-up. Under gcc,
// which rejects the directive itself, nothing changes. Each case runs on its own copy, concurrently.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../../src/process.js';
import type { RunEvent } from '../../src/formats/events.js';
import { useFixture } from '../helpers/fixture.js';
import { readEvents, readResults, runCli } from '../helpers/cli.js';
import { writeScriptedDescriptor } from '../helpers/scripted-agent.js';

const GENERATED = '#pragma omp parallel for collapse(2) shared(a) reduction(+:rows) ';
const LOWERED = '#pragma omp parallel for shared(a) reduction(+:rows) ';
const SEQUENTIAL = 'rows 64 sum 4326400.0\n';

function useCompiler(dotDir: string, cc: string): void {
  const settings = path.join(dotDir, 'project', 'configs', 'tiny', 'seq_settings.json');
  writeFileSync(settings, JSON.stringify({ ...JSON.parse(readFileSync(settings, 'utf8')), CC: cc }));
}

const cli = (dotDir: string, ...args: string[]) => runCli(dotDir, ['--dot-dp-path', dotDir, ...args]);

/**
 * The project with suggestion `id`'s current patch set applied by GNU patch, built with `cc
 * -fopenmp` and run at 1 and 4 threads; with no id, the sequential program (no patch, no -fopenmp).
 */
async function outputsWith(root: string, id: string | null, cc: string): Promise<string[]> {
  const copy = path.join(mkdtempSync(path.join(tmpdir(), 'pr-collapse-')), 'project');
  try {
    cpSync(root, copy, { recursive: true });
    if (id !== null) {
      const patched = await runProcess({
        command: 'patch',
        args: ['--batch', 'src/counter.c', path.join(copy, '.discopop', 'patch_generator', id, '1.patch')],
        cwd: copy,
      });
      expect(patched, 'GNU patch').toMatchObject({ kind: 'exited', exitCode: 0 });
    }
    const built = await runProcess({
      command: 'make',
      args: ['-s', `CC=${cc}`, `CFLAGS=-O2${id === null ? '' : ' -fopenmp'}`],
      cwd: copy,
    });
    expect(built, 'make').toMatchObject({ kind: 'exited', exitCode: 0 });
    const outputs: string[] = [];
    for (const threads of ['1', '4']) {
      const ran = await runProcess({ command: './counter', args: [], cwd: copy, env: { OMP_NUM_THREADS: threads } });
      outputs.push(ran.kind === 'exited' ? ran.stdout : ran.kind);
    }
    return outputs;
  } finally {
    rmSync(path.dirname(copy), { recursive: true, force: true });
  }
}

describe.concurrent('a collapse(2) over an imperfect nest (fixtures/collapse)', () => {
  it('under clang: the generated patch builds and counts wrong, the check fails it, the built-in repairer lowers the collapse, the program counts right', async (test) => {
    const { root, dotDir } = useFixture('collapse', test);
    useCompiler(dotDir, 'clang');
    const perfect = readFileSync(path.join(dotDir, 'patch_generator', '2', '1.patch'), 'utf8');
    // What the issue reports: clang builds the generated directive and the counter is wrong at any thread count.
    expect(await outputsWith(root, '1', 'clang')).toEqual(['rows 4096 sum 4326400.0\n', 'rows 4096 sum 4326400.0\n']);

    const run = await cli(dotDir, '--backend', 'builtin');
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const [one, two] = readResults(dotDir).suggestions;
    expect(one).toMatchObject({
      id: '1',
      status: 'repaired',
      error_class: 'collapse-not-nested',
      builtin_rule: 'lower-collapse',
      builtin: { tries: 1, accepted: true },
    });
    expect(one!.first_error).toMatch(
      /^src\/counter\.c:11:30: error: collapse\(2\) over loops that are not perfectly nested: the statement 'rows\+\+;' at line 13 stands between the loop at line 12 and the loop at line 14/,
    );
    expect(two).toMatchObject({ id: '2', status: 'ok' });
    const repaired = readFileSync(path.join(dotDir, 'patch_generator', '1', '1.patch'), 'utf8');
    expect(repaired).toContain(`+    ${LOWERED}\n`);
    expect(repaired).not.toMatch(/collapse\(/);
    expect(readFileSync(path.join(dotDir, 'patch_generator', '2', '1.patch'), 'utf8')).toBe(perfect);
    expect(await outputsWith(root, '1', 'clang')).toEqual([SEQUENTIAL, SEQUENTIAL]);
    expect(await outputsWith(root, '2', 'clang')).toEqual([SEQUENTIAL, SEQUENTIAL]);
    expect(await outputsWith(root, null, 'clang')).toEqual([SEQUENTIAL, SEQUENTIAL]);
  });

  it("under gcc: nothing changes — gcc rejects the directive, lower-collapse repairs it from gcc's words, the perfect nest stays ok", async (test) => {
    const { root, dotDir } = useFixture('collapse', test);
    const perfect = readFileSync(path.join(dotDir, 'patch_generator', '2', '1.patch'), 'utf8');
    const run = await cli(dotDir, '--backend', 'builtin');
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const [one, two] = readResults(dotDir).suggestions;
    expect(one).toMatchObject({
      id: '1',
      status: 'repaired',
      error_class: 'collapse-not-nested',
      builtin_rule: 'lower-collapse',
      diagnostic_count: 1,
    });
    expect(one!.first_error).toMatch(/src\/counter\.c:13:\d+: error: not enough perfectly nested loops before 'rows'/);
    expect(JSON.stringify(one)).not.toContain('static check');
    expect(two).toMatchObject({ id: '2', status: 'ok' });
    expect(readFileSync(path.join(dotDir, 'patch_generator', '1', '1.patch'), 'utf8')).toContain(`+    ${LOWERED}\n`);
    expect(readFileSync(path.join(dotDir, 'patch_generator', '2', '1.patch'), 'utf8')).toBe(perfect);
    expect(await outputsWith(root, '1', 'gcc')).toEqual([SEQUENTIAL, SEQUENTIAL]);
  });

  it('under clang without a repairer: failed, the reason naming the statement between the loops', async (test) => {
    const { dotDir } = useFixture('collapse', test);
    useCompiler(dotDir, 'clang');
    const run = await cli(dotDir, '--backend', 'builtin', '--no-builtin');
    expect(run.exitCode, run.stdout + run.stderr).not.toBe(2);
    const [one, two] = readResults(dotDir).suggestions;
    expect(one).toMatchObject({ id: '1', status: 'failed', error_class: 'collapse-not-nested' });
    expect(one!.reason).toMatch(
      /^the build passed, but src\/counter\.c:11:30: error: collapse\(2\) over loops that are not perfectly nested: the statement 'rows\+\+;' at line 13 stands between/,
    );
    expect(two).toMatchObject({ id: '2', status: 'ok' });
  });

  it('under clang, an agent answer keeping the collapse builds and is rejected with the check as its follow-up; lowering it is accepted', async (test) => {
    const { root, dotDir } = useFixture('collapse', test);
    useCompiler(dotDir, 'clang');
    const source = path.join(root, 'src', 'counter.c');
    const original = readFileSync(source, 'utf8');
    const scratch = mkdtempSync(path.join(tmpdir(), 'pr-collapse-agent-'));
    test.onTestFinished(() => rmSync(scratch, { recursive: true, force: true }));
    const replies: string[] = [];
    for (const directive of [`${GENERATED}schedule(static) `, LOWERED]) {
      writeFileSync(
        path.join(scratch, 'after'),
        original.replace(
          '    for (int i = 0; i < N; i++) {\n        rows++;',
          `    ${directive}\n    for (int i = 0; i < N; i++) {\n        rows++;`,
        ),
      );
      const diff = await runProcess({
        command: 'diff',
        args: ['-Naru', '--label', source, '--label', source, source, path.join(scratch, 'after')],
        cwd: scratch,
      });
      if (diff.kind !== 'exited' || diff.exitCode !== 1) throw new Error(`diff: ${diff.kind}`);
      replies.push(`\`\`\`diff\n${diff.stdout}\`\`\`\n`);
    }
    const { descriptorFile } = await writeScriptedDescriptor({ dir: path.join(scratch, 'agent'), replies });
    const run = await cli(
      dotDir,
      '-s',
      '1',
      '--backend',
      descriptorFile,
      '--no-builtin',
      '--prompts',
      '1',
      '--retries',
      '1',
    );
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(readResults(dotDir).suggestions).toEqual([
      expect.objectContaining({ id: '1', status: 'repaired', accepted_attempt: 2, attempts: 2 }),
    ]);
    const rejected = readEvents(dotDir).find(
      (e): e is Extract<RunEvent, { type: 'check' }> => e.type === 'check' && e.attempt === 1 && !e.passed,
    );
    expect(rejected).toMatchObject({
      check: 'builds',
      reason: expect.stringContaining("patch-repair's static check rejects it"),
    });
    expect(rejected!.reason).toContain(
      "the statement 'rows++;' at line 13 stands between the loop at line 12 and the loop at line 14",
    );
    const followUp = readFileSync(path.join(dotDir, 'patch_repair', 'attempts', '1', '2', 'prompt.txt'), 'utf8');
    expect(followUp).toContain(
      "the statement 'rows++;' at line 13 stands between the loop at line 12 and the loop at line 14",
    );
    expect(await outputsWith(root, '1', 'clang')).toEqual([SEQUENTIAL, SEQUENTIAL]);
  });
});
