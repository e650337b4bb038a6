// What a first-time user meets on the demo, through the built CLI: which stream says what, the
// usage errors that name the way out, and reasons that quote the tool that complained.
// The cases run concurrently, each on its own copy of the demo.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { readEvents, readResults, runCli } from '../helpers/cli.js';

/** gcc, make and patch live in /usr/bin; node's own folder holds no agent CLI here. */
const NO_AGENT_PATH = { PATH: ['/usr/bin', '/bin', path.dirname(process.execPath)].join(path.delimiter) };

const progressLog = (dotDir: string) => path.join(dotDir, 'patch_repair', 'progress.jsonl');

function emptyDir(test: TestContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pr-first-run-'));
  test.onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe.concurrent('streams', () => {
  it('stdout carries the summary alone; progress, warnings and notes go to stderr', async (test) => {
    const { dotDir, root } = useFixture('demo', test);
    // The project recorded elsewhere: the run warns that it relocated the files.
    const mapping = path.join(dotDir, 'FileMapping.txt');
    writeFileSync(mapping, readFileSync(mapping, 'utf8').replaceAll(root, '/home/someone/else/demo'));
    const run = await runCli(dotDir, ['-s', '2,3'], { env: NO_AGENT_PATH });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stderr).toContain('warning: FileMapping.txt records the project at /home/someone/else/demo');
    expect(run.stderr).toContain(
      'no agent CLI found on PATH (looked for claude, opencode); the built-in repairer runs alone',
    );
    expect(run.stderr).toContain('Repairing suggestion 2 (1 of 2)');
    const out = run.stdout.trim().split('\n');
    expect(out[0]).toMatch(/^id +hotspot +files +status +calls +class +detail$/);
    expect(out.slice(1, 3).map((line) => line.split(/ +/)[0])).toEqual(['2', '3']);
    expect(run.stdout).toContain('Repaired and written: 2\n');
    expect(run.stdout).not.toMatch(/warning|note:|no agent CLI|Repairing|Building/);
  });

  it('names the file ids a written patch set changed', async (test) => {
    const { dotDir } = useFixture('demo', test);
    const run = await runCli(dotDir, ['--backend', 'builtin', '-s', '9'], { env: NO_AGENT_PATH });
    expect(run.exitCode, run.stderr).toBe(0);
    // Of its two files, the repair changed one.
    expect(readResults(dotDir).suggestions[0]).toMatchObject({
      id: '9',
      status: 'repaired',
      files: ['2', '4'],
      changed_files: ['4'],
    });
    expect(run.stderr).toContain('  suggestion 9: verified patch set written (file 4)\n');
  });
});

describe.concurrent('usage errors that name the way out', () => {
  it('an unknown subcommand is named as one, exit 2', async (test) => {
    const { dotDir } = useFixture('demo', test);
    const run = await runCli(dotDir, ['frobnicate']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe("patch-repair: unknown command 'frobnicate' (commands: show, report; see --help)\n");
    expect(run.stdout).toBe('');
  });

  it('--backend is checked with --discover-only as it is in a repair run: exit 2, nothing built', async (test) => {
    const { dotDir } = useFixture('demo', test);
    const alone = await runCli(dotDir, ['--backend', 'gpt']);
    const discovering = await runCli(dotDir, ['--backend', 'gpt', '--discover-only']);
    expect([alone.exitCode, discovering.exitCode]).toEqual([2, 2]);
    expect(discovering.stderr).toMatch(/^patch-repair: --backend gpt: unknown backend \(known: .*builtin/);
    expect(discovering.stderr).toBe(alone.stderr);
    expect(existsSync(progressLog(dotDir))).toBe(false);
  });

  it('run from a folder inside .discopop, the error names that .discopop', async (test) => {
    const { dotDir } = useFixture('demo', test);
    const run = await runCli(path.join(dotDir, 'patch_generator'), []);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      `this folder is inside the .discopop folder ${dotDir}: run there or pass --dot-dp-path ${dotDir}`,
    );
  });

  it('show and report outside any .discopop say to pass --dot-dp-path; from the project root they name its .discopop', async (test) => {
    const elsewhere = emptyDir(test);
    for (const command of ['show', 'report']) {
      const run = await runCli(elsewhere, [command]);
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toBe(
        `patch-repair: ${elsewhere}: not a .discopop folder and no run recorded here; run inside .discopop or pass --dot-dp-path\n`,
      );
    }
    const { dotDir, root } = useFixture('demo', test);
    const fromRoot = await runCli(root, ['show']);
    expect(fromRoot.exitCode).toBe(2);
    expect(fromRoot.stderr).toContain(`did you mean --dot-dp-path ${dotDir}?`);
  });
});

describe.concurrent('reasons that quote the tool that complained', () => {
  it('an unreadable FileMapping.txt line is one error, not one more for every patch of that file id', async (test) => {
    const { dotDir } = useFixture('demo', test);
    const mapping = path.join(dotDir, 'FileMapping.txt');
    // Suggestions 0, 5 and 9 patch file id 2.
    writeFileSync(mapping, readFileSync(mapping, 'utf8').replace(/^2\t/m, '2 '));
    const run = await runCli(dotDir, ['--discover-only']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(`patch-repair: ${mapping}: line 2: expected "<file id><TAB><absolute path>"\n`);
  });

  it("a truncated generated patch: the built-in repairer's reason quotes patch's complaint, not 'patching file'", async (test) => {
    const { dotDir } = useFixture('demo', test);
    const patchFile = path.join(dotDir, 'patch_generator', '3', '5.patch');
    const text = readFileSync(patchFile, 'utf8');
    // Cut right after the hunk header: GNU patch says "unexpected end of file in patch".
    writeFileSync(patchFile, text.slice(0, text.indexOf('\n', text.indexOf('@@')) + 1));
    const run = await runCli(dotDir, ['-s', '3'], { env: NO_AGENT_PATH });
    expect(run.exitCode, run.stderr).toBe(1);
    const [record] = readResults(dotDir).suggestions;
    // The generated patch does not apply and nothing repaired it: DiscoPoP's not_applied, and the reason says regenerating is the other fix.
    expect(record).toMatchObject({ id: '3', status: 'not_applied', error_class: 'patch-does-not-apply' });
    expect(record!.reason).toContain('regenerating them with DiscoPoP is the other fix');
    expect(record!.builtin.declined).toContain(
      'the generated patch does not apply (src/matvec.c: patch: **** unexpected end of file in patch)',
    );
    expect(record!.reason).not.toContain('patching file');
  });

  it('a compiler message that quotes is not wrapped in a second pair of quotes', async (test) => {
    const { dotDir } = useFixture('demo', test);
    const patchFile = path.join(dotDir, 'patch_generator', '3', '5.patch');
    // No built-in rule makes a variable's value a constant, and gcc's message begins with a quote.
    writeFileSync(
      patchFile,
      readFileSync(patchFile, 'utf8').replace(
        /^\+ *#pragma omp parallel for .*$/m,
        '+    #pragma omp parallel for simd safelen(cols) shared(a,x,y)',
      ),
    );
    const run = await runCli(dotDir, ['-s', '3'], { env: NO_AGENT_PATH });
    expect(run.exitCode, run.stderr).toBe(1);
    const [record] = readResults(dotDir).suggestions;
    expect(record!.builtin.declined).toContain(
      "no built-in rule repairs the error 'safelen' clause expression must be positive constant integer expression",
    );
    expect(run.stdout + run.stderr).not.toContain("''safelen'");
  });
});

describe.concurrent('an agent that cannot be started', () => {
  it('--backend claude with no claude on PATH is refused before any build: one line, exit 4', async (test) => {
    const { dotDir } = useFixture('demo', test);
    const run = await runCli(dotDir, ['--backend', 'claude'], { env: NO_AGENT_PATH });
    expect(run.exitCode).toBe(4);
    expect(run.stderr).toBe(
      'patch-repair: --backend claude: cannot start claude: no such executable on PATH; install it, give its path as "executable" in llm_config.json, or choose --backend builtin\n',
    );
    expect(run.stdout).toBe('');
    expect(readEvents(dotDir).filter((e) => e.type === 'build-started')).toEqual([]);
  });

  it('--no-builtin with no agent CLI on PATH is refused before any build, exit 4', async (test) => {
    const { dotDir } = useFixture('demo', test);
    const run = await runCli(dotDir, ['--no-builtin'], { env: NO_AGENT_PATH });
    expect(run.exitCode).toBe(4);
    expect(run.stderr).toMatch(
      /^patch-repair: --no-builtin leaves every repair to an agent, and no agent CLI is on PATH \(looked for claude, opencode\); install one, or name it with --backend\n$/,
    );
    expect(readEvents(dotDir).filter((e) => e.type === 'build-started')).toEqual([]);
  });

  it('a CLI that is there but cannot be spawned (its interpreter is missing) ends the run with exit 4 and counts no call', async (test) => {
    const { dotDir } = useFixture('demo', test);
    const dir = emptyDir(test);
    const script = path.join(dir, 'broken-agent');
    writeFileSync(script, '#!/nonexistent/interpreter\n');
    chmodSync(script, 0o755);
    const descriptor = path.join(dir, 'broken.json');
    writeFileSync(descriptor, JSON.stringify({ name: 'broken', command: [script], prompt: 'stdin' }));
    const run = await runCli(dotDir, ['--backend', descriptor, '--no-builtin', '-s', '3'], { env: NO_AGENT_PATH });
    expect(run.exitCode, run.stderr).toBe(4);
    const [record] = readResults(dotDir).suggestions;
    expect(record).toMatchObject({ id: '3', status: 'skipped', attempts: 0, unanswered: 0 });
    expect(record!.reason).toContain('agent unusable (misconfigured)');
  });
});

describe.concurrent('nothing left out silently', () => {
  it('names the suggestions -ht leaves out, with the reason, on screen, in results.json and on the review page', async (test) => {
    const { dotDir } = useFixture('demo', test);
    const run = await runCli(dotDir, ['--discover-only']);
    expect(run.exitCode, run.stderr).toBe(1);
    const results = readResults(dotDir);
    expect(results.run.not_considered).toEqual([{ id: '8', reason: 'hotspot NO' }]);
    expect(results.suggestions.map((s) => s.id)).not.toContain('8');
    expect(run.stdout).toContain('\nNot considered: 1 (hotspot NO: 8)\n');
    expect((await runCli(dotDir, ['report'])).exitCode).toBe(0);
    expect(readFileSync(path.join(dotDir, 'patch_repair', 'report.html'), 'utf8')).toContain(
      '<dt>not considered</dt><dd>1 (hotspot NO: 8)</dd>',
    );

    const chosen = await runCli(dotDir, ['--discover-only', '-s', '2,3']);
    expect(chosen.exitCode, chosen.stderr).toBe(1);
    expect(readResults(dotDir).run.not_considered.map((n) => n.reason)).toEqual(Array(8).fill('not in -s'));
    expect(chosen.stdout).toContain('\nNot considered: 8 (not in -s: 0, 1, 4, 5, 6, 7, 8, 9)\n');
  });

  it('without patterns.json beside Hotspots.json: a warning naming the file, every suggestion unclassified, exit 1', async (test) => {
    const { dotDir } = useFixture('demo', test);
    for (const folder of ['explorer', 'optimizer']) rmSync(path.join(dotDir, folder, 'patterns.json'));
    const run = await runCli(dotDir, []);
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      `warning: ${path.join(dotDir, 'explorer', 'patterns.json')} is missing while hotspot_detection/Hotspots.json exists: every suggestion is therefore unclassified, and -ht leaves every unclassified one out; name the suggestions to check with -s\n`,
    );
    const results = readResults(dotDir);
    expect(results.suggestions).toEqual([]);
    expect(results.run.not_considered).toHaveLength(10);
    expect(new Set(results.run.not_considered.map((n) => n.reason))).toEqual(
      new Set(['unclassified (no hotspot entry)']),
    );
    expect(run.stdout).toContain(
      'No suggestion was considered, so nothing was checked: choose them with -ht (hotspot types) or -s (ids)\n',
    );
    expect(readEvents(dotDir).filter((e) => e.type === 'build-started')).toEqual([]);
  });
});

describe.concurrent('interrupted during discovery', () => {
  it('suggestions whose build had finished keep their result; only the unfinished ones are skipped (interrupted)', async (test) => {
    const { dotDir } = useFixture('demo', test);
    // SIGINT once the fourth build (reference, probe or suggestion) has compiled: some have finished, some not.
    const run = await runCli(dotDir, ['--discover-only', '-j', '1'], {
      env: { ...NO_AGENT_PATH, PATCH_REPAIR_FAULT: 'build.after-compile@4:SIGINT' },
    });
    expect(run.exitCode, run.stderr).toBe(130);
    const finished = new Map(
      readEvents(dotDir).flatMap((e) =>
        e.type === 'build-finished' && e.purpose === 'discovery' && e.id !== null ? [[e.id, e] as const] : [],
      ),
    );
    const { suggestions } = readResults(dotDir);
    const built = suggestions.filter((s) => finished.has(s.id));
    const unfinished = suggestions.filter((s) => !finished.has(s.id) && s.reason !== 'no patch');
    expect(built.length).toBeGreaterThan(0);
    expect(unfinished.length).toBeGreaterThan(0);
    for (const record of built) {
      const build = finished.get(record.id)!;
      if (build.ok) expect(record, `suggestion ${record.id}`).toMatchObject({ status: 'ok' });
      else
        expect(record, `suggestion ${record.id}`).toMatchObject({ status: 'failed', error_class: build.error_class });
    }
    for (const record of unfinished)
      expect(record, `suggestion ${record.id}`).toMatchObject({ status: 'skipped', reason: 'interrupted' });
  });
});
