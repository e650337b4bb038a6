// --check-races through the built CLI: real clang -fsanitize=thread builds with LLVM's Archer,
// real runs of execute.sh, the scripted agent answering first with a repair that races and then
// with the right one. Each case works on its own project copy, side by side.
import { existsSync, readFileSync, rmSync, writeFileSync, mkdtempSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, readEvents, readResults, runCli } from '../helpers/cli.js';
import { scriptedCalls, writeScriptedDescriptor } from '../helpers/scripted-agent.js';
import { answerText, writeRunProject } from '../helpers/run-project-files.mjs';
import {
  ARRAY_REDUCTION,
  FILE_SCOPE_SECTION,
  INNER_INDEX,
  SHARED_TEMP,
  type RaceProgram,
} from '../helpers/race-programs.mjs';
import { executablesOnPath, runProcess } from '../../src/process.js';
import { openPage } from '../../scripts/docs-screenshot.mjs';
import { pathToFileURL } from 'node:url';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** clang's TSan runtime (Debian's libclang-rt-14-dev): without it every case here would refuse. */
async function tsanMissing(clang = 'clang'): Promise<string | null> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pr-tsan-probe-'));
  folders.push(dir);
  writeFileSync(path.join(dir, 'p.c'), 'int main(void) { return 0; }\n');
  const built = await runProcess({
    command: clang,
    args: ['-fopenmp', '-fsanitize=thread', 'p.c', '-o', 'p'],
    cwd: dir,
    timeoutMs: 60_000,
  });
  if (built.kind === 'exited' && built.exitCode === 0) return null;
  const n = /-(\d+)$/.exec(clang)?.[1] ?? '14';
  return `${clang} -fopenmp -fsanitize=thread does not link here; install the Debian packages clang-${n} libclang-rt-${n}-dev libomp-${n}-dev`;
}
const missing = await tsanMissing();
/** The clang-N on PATH whose race builds are tested: 14 (Debian's) and 19 (DiscoPoP's default). */
const CLANGS = ['clang-14', 'clang-19'];
const onPath = await executablesOnPath(process.env['PATH'] ?? '', (name) => CLANGS.includes(name));
const clangMissing = new Map<string, string | null>();
for (const clang of CLANGS)
  clangMissing.set(clang, onPath.has(clang) ? await tsanMissing(clang) : `${clang} is not on PATH`);
for (const [clang, why] of clangMissing) {
  if (why && process.env.CI) throw new Error(`check-races.test.ts: ${why}`);
  if (why) console.warn(`check-races.test.ts: the ${clang} cases skipped: ${why}`);
}
/** What a gcc project's race build resolves to: the newest clang-N that links with TSan. */
const NEWEST = [...CLANGS].reverse().find((clang) => clangMissing.get(clang) === null);
// .ci/run installs the runtime, so CI never passes by skipping.
if (missing && process.env.CI) throw new Error(`check-races.test.ts: ${missing}`);
if (missing) console.warn(`check-races.test.ts skipped: ${missing}`);

async function project(program: RaceProgram, generated = program.generated, extra: Record<string, unknown> = {}) {
  const written = await writeRunProject({ mainC: program.mainC, loopLine: program.loopLine, generated, ...extra });
  folders.push(written.root);
  return written;
}

async function agent(root: string, replies: string[]) {
  const written = await writeScriptedDescriptor({
    dir: path.join(root, '..', `${path.basename(root)}-agent`),
    replies,
  });
  folders.push(path.dirname(written.descriptorFile));
  return written;
}

function verdictOf(dot: string, attempt: number) {
  return JSON.parse(
    readFileSync(path.join(dot, 'patch_repair', 'attempts', '1', String(attempt), 'verdict.json'), 'utf8'),
  );
}

describe.skipIf(missing !== null).concurrent('--check-races', () => {
  for (const program of [SHARED_TEMP, ARRAY_REDUCTION, INNER_INDEX]) {
    const withRun = program === SHARED_TEMP;
    it(`${program.name}: rejects the racing repair with the line named, accepts the right one with no report${withRun ? ' (--check-run alone accepts the racing one)' : ''}`, async () => {
      const { root, dot } = await project(program);
      const { descriptorFile, stateFile } = await agent(root, [
        answerText(root, program.mainC, program.loopLine, program.racy),
        answerText(root, program.mainC, program.loopLine, program.right),
      ]);
      const run = await runCli(dot, [
        '--dot-dp-path',
        dot,
        '--backend',
        descriptorFile,
        '--no-builtin',
        '--check-races',
        ...(withRun ? ['--check-run'] : []),
        '--run-threads',
        '2',
      ]);
      expect(run.exitCode, run.stdout + run.stderr).toBe(0);

      const rejected = verdictOf(dot, 1);
      expect(rejected).toMatchObject({
        outcome: 'rejected',
        rejected_by: 'races',
        race_check: { verdict: 'races', threads: 2 },
      });
      const where = `src/main.c:${(NEWEST && program.raceLineBy?.[NEWEST]) ?? program.raceLine}`;
      expect(rejected.reason).toContain('ThreadSanitizer');
      expect(rejected.reason).toContain(where);
      if (program.variable) expect(rejected.reason).toContain(`variable \`${program.variable}\``);
      const report = rejected.race_check.reports[0];
      expect(report.in_patch).toBe(true);
      expect([report.first.location, report.previous.location].some((l: string) => l.startsWith(`${where}`))).toBe(
        true,
      );
      expect(report.variable).toBe(program.variable);
      if (withRun) {
        // Check 7 ran the racing repair and found nothing: the output is the sequential one.
        expect(rejected.checks.map((c: { check: string; passed: boolean }) => [c.check, c.passed])).toEqual(
          expect.arrayContaining([
            ['runs', true],
            ['races', false],
          ]),
        );
        expect(rejected.run_check).toMatchObject({ verdict: 'same' });
      }
      const calls = await scriptedCalls(stateFile);
      expect(calls).toHaveLength(2);
      expect(calls[1]!.prompt).toContain('"races" check');
      expect(calls[1]!.prompt).toContain(where);

      const results = readResults(dot);
      expect(results.suggestions[0]).toMatchObject({
        status: 'repaired',
        accepted_attempt: 2,
        race_check: { verdict: 'clean', reports: [], threads: 2 },
      });
      expect(readFileSync(path.join(dot, 'patch_generator', '1', '1.patch'), 'utf8')).toContain(program.right.trim());
      const reference = readEvents(dot).find((e) => e.type === 'race-reference');
      expect(reference).toMatchObject({ races: [], threads: 2 });

      const show = await runCli(dot, ['show', '--dot-dp-path', dot, '1']);
      expect(show.stdout).toContain('Races (--check-races, ThreadSanitizer at 2 threads');
    });
  }

  it('a kill during a candidate’s race run leaves the user’s files as they were, and --resume finishes the check', async () => {
    const { root, dot } = await project(SHARED_TEMP);
    const { descriptorFile, stateFile } = await agent(root, [
      answerText(root, SHARED_TEMP.mainC, SHARED_TEMP.loopLine, SHARED_TEMP.racy),
      answerText(root, SHARED_TEMP.mainC, SHARED_TEMP.loopLine, SHARED_TEMP.right),
    ]);
    const args = [
      '--dot-dp-path',
      dot,
      '--backend',
      descriptorFile,
      '--no-builtin',
      '--check-races',
      '--run-threads',
      '2',
    ];
    const generated = readFileSync(path.join(dot, 'patch_generator/1/1.patch'), 'utf8');
    const source = readFileSync(path.join(root, 'src/main.c'), 'utf8');
    // The first race run is the reference's; the second is the agent's first candidate's.
    const killed = await runProcess({
      command: process.execPath,
      args: [CLI, ...args],
      cwd: dot,
      env: { PATCH_REPAIR_FAULT: 'races.after-run@2' },
      timeoutMs: 240_000,
    });
    expect(killed).toMatchObject({ kind: 'signaled', signal: 'SIGKILL' });
    expect(readFileSync(path.join(dot, 'patch_generator/1/1.patch'), 'utf8')).toBe(generated);
    expect(readFileSync(path.join(root, 'src/main.c'), 'utf8')).toBe(source);
    expect(existsSync(path.join(root, 'demo'))).toBe(false);

    const resumed = await runCli(dot, [...args, '--resume']);
    expect(resumed.exitCode, resumed.stdout + resumed.stderr).toBe(0);
    // The answer that arrived before the kill is checked again, not asked again.
    expect(await scriptedCalls(stateFile)).toHaveLength(2);
    expect(verdictOf(dot, 1)).toMatchObject({ rejected_by: 'races', race_check: { verdict: 'races' } });
    expect(readResults(dot).suggestions[0]).toMatchObject({
      status: 'repaired',
      accepted_attempt: 2,
      race_check: { verdict: 'clean' },
    });
    expect(readFileSync(path.join(dot, 'patch_generator/1/1.patch'), 'utf8')).toContain(SHARED_TEMP.right.trim());
  });

  it('all: a suggestion that builds as generated and races is reported, its status stays ok; show and the review page (Chromium) put the racing lines beside the hunk', async () => {
    const { dot } = await project(SHARED_TEMP, SHARED_TEMP.racy);
    const run = await runCli(dot, [
      '--dot-dp-path',
      dot,
      '--backend',
      'builtin',
      '--check-races',
      'all',
      '--run-threads',
      '2',
    ]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const record = readResults(dot).suggestions[0]!;
    expect(record).toMatchObject({
      status: 'ok',
      race_check: { verdict: 'races', reports: [expect.objectContaining({ variable: 't', in_patch: true })] },
    });
    expect(run.stdout).toContain('builds as generated, races at src/main.c:11 (t)');
    expect(run.stdout).toContain('Suggestion 1 builds as generated, races at src/main.c:11 (t)');

    // show: each access's source line, and the hunk of the generated patch that added the region.
    const show = await runCli(dot, ['show', '--dot-dp-path', dot, '1']);
    expect(show.stdout).toMatch(/ {4}src\/main\.c:11: +t = scale \* 2\.0; +\(this write\)/);
    expect(show.stdout).toMatch(/ {4}src\/main\.c:11: +t = scale \* 2\.0; +\(another thread's write\)/);
    expect(show.stdout).toContain('added by this hunk of the patch:');
    expect(show.stdout).toContain(`+${SHARED_TEMP.racy}`);

    // The review page in Chromium: the two lines side by side, the hunk beside them.
    expect((await runCli(dot, ['report', '--dot-dp-path', dot])).exitCode).toBe(0);
    const opened = await openPage(pathToFileURL(path.join(dot, 'patch_repair', 'report.html')).href);
    try {
      const pair = opened.page.locator('#s-1 .race-pair');
      expect(await pair.count()).toBe(1);
      const first = pair.locator('[data-access="first"]');
      const previous = pair.locator('[data-access="previous"]');
      const hunk = pair.locator('[data-race-hunk]');
      expect(await first.locator('pre').textContent()).toBe('t = scale * 2.0;');
      expect(await previous.locator('pre').textContent()).toBe('t = scale * 2.0;');
      expect(await first.locator('.race-where').textContent()).toBe('this write at src/main.c:11');
      expect(await hunk.textContent()).toContain(SHARED_TEMP.racy.trim());
      const [a, b, h] = await Promise.all([first, previous, hunk].map(async (box) => (await box.boundingBox())!));
      expect(Math.abs(a!.y - b!.y)).toBeLessThan(2);
      expect(Math.abs(a!.y - h!.y)).toBeLessThan(2);
      expect(a!.x + a!.width).toBeLessThanOrEqual(b!.x);
      expect(b!.x + b!.width).toBeLessThanOrEqual(h!.x);
    } finally {
      await opened.close();
    }
  });

  it('refuses with exit 3 and the packages named when compile.sh ignores the settings’ compiler', async () => {
    const { root, dot } = await project(SHARED_TEMP);
    writeFileSync(
      path.join(dot, 'project/configs/tiny/compile.sh'),
      '#!/bin/sh\ngcc -fopenmp -O1 -o "$DP_PROJECT_ROOT_DIR/demo" "$DP_PROJECT_ROOT_DIR/src/main.c"\n',
    );
    const before = readFileSync(path.join(dot, 'patch_generator/1/1.patch'), 'utf8');
    const run = await runCli(dot, ['--dot-dp-path', dot, '--backend', 'builtin', '--check-races']);
    expect(run.exitCode, run.stdout + run.stderr).toBe(3);
    const lines = run.stderr
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('patch-repair:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /--check-races: .*runs without ThreadSanitizer: compile\.sh ignores the settings' compiler.*install the Debian packages clang-(\d+) libclang-rt-\1-dev libomp-\1-dev/,
    );
    expect(readFileSync(path.join(dot, 'patch_generator/1/1.patch'), 'utf8')).toBe(before);
    expect(existsSync(path.join(root, 'demo'))).toBe(false);
  });

  // A clang without the TSan runtime: clang-19 named by --race-cc, and a bare clang 14 as the project's compiler.
  for (const fake of [
    { name: 'clang-19', version: 19, how: '--race-cc' },
    { name: 'clang', version: 14, how: "the project's compiler" },
  ]) {
    it(`refuses with exit 3 naming clang ${fake.version}'s packages when ${fake.how}, ${fake.name}, cannot build with -fsanitize=thread`, async () => {
      const { root, dot } = await project(SHARED_TEMP);
      const bin = path.join(root, '..', `${path.basename(root)}-bin`);
      folders.push(bin);
      await import('node:fs/promises').then((fs) => fs.mkdir(bin, { recursive: true }));
      writeFileSync(
        path.join(bin, fake.name),
        `#!/bin/sh\n[ "$1" = --version ] && { echo "Debian clang version ${fake.version}.0.6"; exit 0; }\nfor a; do [ "$a" = -fsanitize=thread ] && { echo "clang: error: unsupported option '-fsanitize=thread'" >&2; exit 1; }; done\nexec gcc "$@"\n`,
      );
      chmodSync(path.join(bin, fake.name), 0o755);
      const settings = path.join(dot, 'project/configs/tiny/seq_settings.json');
      writeFileSync(
        settings,
        JSON.stringify({
          ...JSON.parse(readFileSync(settings, 'utf8')),
          PATH: `${bin}:${process.env['PATH']}`,
          ...(fake.how !== '--race-cc' && { CC: fake.name }),
        }),
      );
      const run = await runCli(dot, [
        '--dot-dp-path',
        dot,
        '--backend',
        'builtin',
        '--check-races',
        ...(fake.how === '--race-cc' ? ['--race-cc', fake.name] : []),
      ]);
      expect(run.exitCode, run.stdout + run.stderr).toBe(3);
      const lines = run.stderr
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('patch-repair:'));
      expect(lines).toEqual([
        `patch-repair: --check-races: ${fake.name} cannot build a program with -fopenmp -fsanitize=thread (${fake.how}); install the Debian packages clang-${fake.version} libclang-rt-${fake.version}-dev libomp-${fake.version}-dev`,
      ]);
    });
  }

  // gcc privatizes `reduction(+:hist[:4])` over the file-scope `hist`; clang 14 and 19 do not.
  for (const compiler of [...CLANGS, 'gcc']) {
    const skip = compiler === 'gcc' ? NEWEST === undefined : clangMissing.get(compiler) !== null;
    it.skipIf(skip)(
      `a file-scope histogram's section repair is rejected as clang's fault (project compiler ${compiler}), the whole-array repair accepted`,
      async () => {
        const program = FILE_SCOPE_SECTION;
        const { root, dot } = await project(program, program.generated, { compiler });
        const { descriptorFile, stateFile } = await agent(root, [
          answerText(root, program.mainC, program.loopLine, program.racy),
          answerText(root, program.mainC, program.loopLine, program.right),
        ]);
        const run = await runCli(dot, [
          '--dot-dp-path',
          dot,
          '--backend',
          descriptorFile,
          '--no-builtin',
          '--check-races',
          '--run-threads',
          '2',
        ]);
        expect(run.exitCode, run.stdout + run.stderr).toBe(0);
        const rejected = verdictOf(dot, 1);
        expect(rejected).toMatchObject({ rejected_by: 'races', race_check: { verdict: 'races' } });
        const used = compiler === 'gcc' ? NEWEST! : compiler;
        expect(rejected.race_check.compiler).toContain(used);
        expect(rejected.race_check.compiler).toContain(
          compiler === 'gcc' ? 'the newest clang-N on PATH' : "the project's compiler",
        );
        const report = rejected.race_check.reports[0];
        expect(report).toMatchObject({ variable: 'hist', in_patch: true });
        expect(report.clang_fault).toContain(
          `does not privatize the array-section reduction item \`${program.section}\``,
        );
        if (compiler === 'gcc')
          expect(report.clang_fault).toContain("This race is clang's: gcc, the project's own compiler");
        else expect(report.clang_fault).not.toContain('gcc');
        expect(report.lines).toEqual([expect.stringContaining(`src/main.c:${program.raceLine}: hist[v[i] % 4] += 1;`)]);
        expect(rejected.reason).toContain('whole-array form');
        const calls = await scriptedCalls(stateFile);
        expect(calls).toHaveLength(2);
        expect(calls[1]!.prompt).toContain('does not privatize the array-section reduction item');
        expect(calls[1]!.prompt).toContain('local pointer (an alias)');
        expect(readResults(dot).suggestions[0]).toMatchObject({
          status: 'repaired',
          accepted_attempt: 2,
          race_check: { verdict: 'clean', reports: [] },
        });
      },
    );
  }

  it('a race build that fails where the plain build passes rejects the candidate with the compiler’s message', async () => {
    // CHUNK exists for gcc only: the reference builds under clang (nothing uses it), the candidate does not.
    const program = {
      ...SHARED_TEMP,
      mainC: `#ifndef __clang__\n#define CHUNK 4\n#endif\n${SHARED_TEMP.mainC}`,
      loopLine: SHARED_TEMP.loopLine + 3,
    };
    const { root, dot } = await project(program);
    const { descriptorFile, stateFile } = await agent(root, [
      answerText(root, program.mainC, program.loopLine, `${SHARED_TEMP.right} schedule(static, CHUNK)`),
      answerText(root, program.mainC, program.loopLine, SHARED_TEMP.right),
    ]);
    const run = await runCli(dot, [
      '--dot-dp-path',
      dot,
      '--backend',
      descriptorFile,
      '--no-builtin',
      '--check-races',
      '--run-threads',
      '2',
    ]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const rejected = verdictOf(dot, 1);
    expect(rejected).toMatchObject({ rejected_by: 'races', race_check: { verdict: 'not-run' } });
    expect(rejected.reason).toMatch(/but not with clang-\d+ \(the race build/);
    expect(rejected.reason).toContain("undeclared identifier 'CHUNK'");
    const calls = await scriptedCalls(stateFile);
    expect(calls[1]!.prompt).toContain("undeclared identifier 'CHUNK'");
    expect(readResults(dot).suggestions[0]).toMatchObject({ status: 'repaired', accepted_attempt: 2 });
  });

  it('a project whose reference does not build with clang says once that races cannot be checked, and goes on', async () => {
    const { dot } = await project(SHARED_TEMP, SHARED_TEMP.generated, { seqCflags: '-O1 -fipa-pta' });
    const run = await runCli(dot, ['--dot-dp-path', dot, '--backend', 'builtin', '--check-races']);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const said = (run.stdout + run.stderr).split('\n').filter((line) => line.includes('races cannot be checked'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("unknown argument: '-fipa-pta'");
    expect(readResults(dot).suggestions[0]).toMatchObject({ status: 'repaired', race_check: null });
  });

  for (const always of [false, true]) {
    it(`ThreadSanitizer's "unexpected memory mapping" ${always ? 'on every run refuses naming vm.mmap_rnd_bits' : 'on the first run: the run again under setarch -R, recorded'}`, async () => {
      const { root, dot } = await project(SHARED_TEMP, SHARED_TEMP.racy);
      // execute.sh prints what TSan of clang before 18 dies with on a kernel with vm.mmap_rnd_bits=32.
      const marker = `${root}-mapping-said`;
      folders.push(marker);
      const script = path.join(dot, 'project/configs/tiny/execute.sh');
      writeFileSync(
        script,
        `#!/bin/sh\nif ${always ? 'true' : `[ ! -e '${marker}' ]`}; then touch '${marker}'; echo "FATAL: ThreadSanitizer: unexpected memory mapping 0x7b0000000000-0x7c0000000000" >&2; exit 66; fi\n"$DP_PROJECT_ROOT_DIR/demo"\n`,
      );
      chmodSync(script, 0o755);
      const run = await runCli(dot, [
        '--dot-dp-path',
        dot,
        '--backend',
        'builtin',
        '--check-races',
        'all',
        '--run-threads',
        '2',
      ]);
      if (always) {
        expect(run.exitCode, run.stdout + run.stderr).toBe(3);
        const lines = run.stderr.split('\n').filter((line) => line.startsWith('patch-repair:'));
        expect(lines).toEqual([
          expect.stringMatching(/unexpected memory mapping.*vm\.mmap_rnd_bits.*setarch -R.*died the same way/),
        ]);
        expect(lines[0]).not.toMatch(/Debian packages/);
        return;
      }
      expect(run.exitCode, run.stdout + run.stderr).toBe(0);
      expect(readEvents(dot).find((e) => e.type === 'race-reference')).toMatchObject({ setarch: true });
      expect(readResults(dot).suggestions[0]).toMatchObject({
        status: 'ok',
        race_check: { verdict: 'races', setarch: false },
      });
    });
  }
});
