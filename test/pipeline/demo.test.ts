// The whole product on the bundled demo, through the built CLI, with the built-in repairer and
// real gcc or clang, GNU patch and diff: what a user runs after `npm ci`. DiscoPoP's project
// manager writes CC=clang into new configurations, so the main flow runs under both.
// Each case has a copy of its own: the two compilers' flows run side by side, then the two short
// modes side by side, then the scripted agent's case.
import { mkdtempSync, readFileSync, readdirSync, cpSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../../src/process.js';
import { type RunResults } from '../../src/formats/results.js';
import { useFixture } from '../helpers/fixture.js';
import { changedPaths, snapshotTree } from '../helpers/tree-snapshot.js';
import { readResults, runCli } from '../helpers/cli.js';
import { writeScriptedDescriptor } from '../helpers/scripted-agent.js';
import type { RunEvent } from '../../src/formats/events.js';

const BROKEN = ['2', '3', '4', '5', '6', '9'];

/**
 * The demo's configuration as DiscoPoP writes it, with the compiler of the run. clang accepts
 * suggestion 6's misspelt `depends` with only a warning that it ignores the rest of the line; a
 * warning about a line the patch added fails the build all the same, so 6 is broken under both.
 * `werror` makes the final check's compiler reject what the run must not let through.
 */
const COMPILERS = [
  { cc: 'gcc', cxx: 'g++', broken: BROKEN, werror: '-Werror=unknown-pragmas' },
  { cc: 'clang', cxx: 'clang++', broken: BROKEN, werror: '-Werror=unknown-pragmas -Werror=extra-tokens' },
];

function useCompiler(dotDir: string, cc: string, cxx: string): void {
  const settings = path.join(dotDir, 'project', 'configs', 'tiny', 'seq_settings.json');
  writeFileSync(settings, JSON.stringify({ ...JSON.parse(readFileSync(settings, 'utf8')), CC: cc, CXX: cxx }));
}

const cli = (dotDir: string, ...args: string[]) => runCli(dotDir, ['--dot-dp-path', dotDir, ...args]);

function statuses(file: RunResults): Record<string, string> {
  return Object.fromEntries(file.suggestions.map((record) => [record.id, record.status]));
}

const userFiles = (rel: string) => rel.startsWith(path.join('.discopop', 'patch_repair'));

describe.concurrent.each(COMPILERS)(
  'patch-repair on the demo with the built-in repairer, CC=$cc',
  ({ cc, cxx, broken, werror }) => {
    it('repairs every broken suggestion, writes only verified canonical patch sets, and --restore undoes it', async (test) => {
      const { root, dotDir } = useFixture('demo', test);
      useCompiler(dotDir, cc, cxx);
      const before = snapshotTree(root, userFiles);

      const run = await cli(dotDir, '--backend', 'builtin');
      expect(run.exitCode, run.stdout + run.stderr).toBe(0);
      const first = readResults(dotDir);
      const expected = Object.fromEntries(
        ['0', '1', '2', '3', '4', '5', '6', '9'].map((id) => [id, broken.includes(id) ? 'repaired' : 'ok']),
      );
      expect(statuses(first)).toEqual({ ...expected, '7': 'skipped' });
      expect(run.stdout).toContain('Agent unreachable: 0 (no answer; not a failed repair)');
      for (const id of broken) {
        const record = first.suggestions.find((s) => s.id === id)!;
        expect(record).toMatchObject({
          backend: 'builtin',
          attempts: 0,
          builtin: { tries: 1, accepted: true },
          accepted_attempt: 1,
        });
        expect(record.error_class).not.toBeNull();
        // What a reviewer reads without opening attempts/: the rule, where the patches and the backup are, the errors.
        const verdict = JSON.parse(
          readFileSync(path.join(dotDir, 'patch_repair', 'attempts', id, '1', 'verdict.json'), 'utf8'),
        ) as { source: string };
        expect(`builtin: ${record.builtin_rule}`).toBe(verdict.source);
        expect(record.written_files).toEqual(
          record.changed_files.map((fileId) => `patch_generator/${id}/${fileId}.patch`),
        );
        expect(record.backup).toBe(`patch_repair/backups/${id}`);
        for (const file of record.written_files)
          expect(readdirSync(path.join(dotDir, record.backup!))).toContain(path.basename(file));
        expect(record.diagnostics.length).toBe(Math.min(3, record.diagnostic_count));
        expect(record.first_error).toContain(record.diagnostics[0]!.message);
      }
      // Suggestion 6 misspells `depends` on three directives: three diagnostics, each on its own line.
      const six = first.suggestions.find((s) => s.id === '6')!;
      expect(six.diagnostic_count).toBe(3);
      expect(new Set(six.diagnostics.map((d) => d.line)).size).toBe(3);
      expect(first.suggestions.find((s) => s.id === '0')).toMatchObject({
        builtin_rule: null,
        written_files: [],
        backup: null,
        diagnostic_count: 0,
        diagnostics: [],
      });
      // Suggestion 6's `depends`: gcc rejects it, clang only warns that it drops the rest of the line.
      const dropped =
        cc === 'clang'
          ? /warning: extra tokens at the end of '#pragma omp task' are ignored/
          : /error: expected '#pragma omp' clause before 'depends'/;
      expect(first.suggestions.find((s) => s.id === '6')).toMatchObject({
        error_class: 'unknown-clause',
        first_error: expect.stringMatching(dropped),
      });

      // Only the repaired files of the repaired suggestions changed in the user's tree; suggestion 9
      // spans two files and only one of them needed a repair.
      const changed = first.suggestions.flatMap((s) =>
        s.changed_files.map((fileId) => path.join('.discopop', 'patch_generator', s.id, `${fileId}.patch`)),
      );
      expect(first.suggestions.find((s) => s.id === '9')).toMatchObject({ files: ['2', '4'], changed_files: ['4'] });
      expect(changedPaths(before, snapshotTree(root, userFiles))).toEqual(changed.sort());

      for (const record of first.suggestions.filter((s) => broken.includes(s.id))) {
        const { id } = record;
        const file = `${record.changed_files[0]}.patch`;
        const repaired = readFileSync(path.join(dotDir, 'patch_generator', id, file), 'utf8');
        const generated = readFileSync(path.join(dotDir, 'patch_repair', 'backups', id, file), 'utf8');
        // Canonical form: the generated patch's header paths, diff's TAB + timestamp, directives kept.
        const [minus, plus] = repaired.split('\n');
        expect(minus!.split('\t')[0]).toBe(generated.split('\n')[0]!.split('\t')[0]);
        expect(plus!.split('\t')[0]).toBe(generated.split('\n')[1]!.split('\t')[0]);
        expect(minus).toMatch(/\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} [+-]\d{4}$/);
        const directives = (text: string) =>
          text.split('\n').filter((line) => /^\+\s*#\s*pragma omp/.test(line)).length;
        expect(directives(repaired)).toBe(directives(generated));
        await expectBuildsWithRealPatch(root, id, cc, werror);
      }

      // A second run finds everything building, and knows which were repaired earlier.
      const again = await cli(dotDir, '--backend', 'builtin');
      expect(again.exitCode).toBe(0);
      const second = readResults(dotDir);
      expect(second.suggestions.filter((s) => s.repaired_earlier).map((s) => s.id)).toEqual(broken);
      expect(readdirSync(path.join(dotDir, 'patch_repair', 'history'))).toHaveLength(1);

      const restore = await cli(dotDir, '--restore');
      expect(restore.exitCode).toBe(0);
      expect(restore.stdout).toContain(`Restored ${broken.length} patch sets`);
      expect(changedPaths(before, snapshotTree(root, userFiles))).toEqual([]);
    });
  },
);

describe('patch-repair on the demo with the built-in repairer', () => {
  it.concurrent(
    '--dry-run leaves patch_generator/ byte-identical, timestamps included, and reports repaired, not written; --write-log keeps the log',
    async (test) => {
      const { root, dotDir } = useFixture('demo', test);
      const before = snapshotTree(root, userFiles);
      const run = await cli(dotDir, '--backend', 'builtin', '--dry-run', '--write-log', '--log', 'DEBUG');
      expect(run.exitCode, run.stderr).toBe(0);
      const log = readFileSync(path.join(dotDir, 'patch_repair', 'patch_repair.log'), 'utf8');
      expect(log).toMatch(/^\S+ DEBUG /m);
      expect(log).toMatch(/^\S+ INFO +Repairing suggestion 2 /m);
      expect(changedPaths(before, snapshotTree(root, userFiles), { mtimes: true })).toEqual([]);
      const file = readResults(dotDir);
      expect(BROKEN.map((id) => statuses(file)[id])).toEqual(BROKEN.map(() => 'repaired'));
      expect(file.suggestions.every((s) => !s.written)).toBe(true);
      // Verified by a rule but written nowhere: no written files, no backup.
      expect(file.suggestions.find((s) => s.id === '3')).toMatchObject({
        builtin_rule: 'drop-out-of-scope-names',
        written_files: [],
        backup: null,
      });
      // The verified patches are still there to read, in the transcripts.
      const canonical = path.join(dotDir, 'patch_repair', 'attempts', '2', '1', 'canonical');
      expect(readdirSync(canonical).length).toBeGreaterThan(0);
    },
  );

  it.concurrent('--discover-only names the broken suggestions with their error class and exits 1', async (test) => {
    const { root, dotDir } = useFixture('demo', test);
    const before = snapshotTree(root, userFiles);
    const run = await cli(dotDir, '--discover-only');
    expect(run.exitCode).toBe(1);
    const file = readResults(dotDir);
    expect(BROKEN.map((id) => statuses(file)[id])).toEqual(BROKEN.map(() => 'failed'));
    expect(file.suggestions.find((s) => s.id === '3')).toMatchObject({
      attempts: 0,
      error_class: 'undeclared-in-clause',
    });
    expect(file.suggestions.find((s) => s.id === '5')).toMatchObject({ error_class: 'invalid-privatization' });
    expect(readdirSync(path.join(dotDir, 'patch_repair')).sort()).toEqual([
      'progress.jsonl',
      'results.json',
      'scratch.json',
    ]);
    expect(changedPaths(before, snapshotTree(root, userFiles), { mtimes: true })).toEqual([]);
  });
});

describe('suggestion 6 under CC=clang with the scripted agent', () => {
  it('rejects at check 6 an answer that leaves one `depends` (clang only warns), and accepts `depend` everywhere', async () => {
    const { root, dotDir } = useFixture('demo');
    useCompiler(dotDir, 'clang', 'clang++');
    const source = path.join(root, 'src', 'smooth.c');
    const original = readFileSync(source, 'utf8');
    const tasks = (spelling: (stage: number) => string) =>
      original
        .replace(
          '        a[i] = 0.5',
          `        #pragma omp task firstprivate(i) shared(a) ${spelling(1)}(out:a)\n        a[i] = 0.5`,
        )
        .replace(
          '        b[i] = a[i]',
          `        #pragma omp task firstprivate(i) shared(a,b) ${spelling(2)}(in:a) ${spelling(2)}(out:b)\n        b[i] = a[i]`,
        )
        .replace(
          '        c[i] = c[i',
          `        #pragma omp task firstprivate(i) shared(b,c) ${spelling(3)}(in:b) ${spelling(3)}(inout:c)\n        c[i] = c[i`,
        );
    const scratch = mkdtempSync(path.join(tmpdir(), 'pr-clang6-'));
    try {
      const replies = [];
      for (const answer of [tasks((stage) => (stage === 3 ? 'depends' : 'depend')), tasks(() => 'depend')]) {
        writeFileSync(path.join(scratch, 'after'), answer);
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
        '6',
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
        expect.objectContaining({
          id: '6',
          status: 'repaired',
          error_class: 'unknown-clause',
          accepted_attempt: 2,
          attempts: 2,
        }),
      ]);
      const events = readFileSync(path.join(dotDir, 'patch_repair', 'progress.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as RunEvent);
      const rejected = events.find(
        (e): e is Extract<RunEvent, { type: 'check' }> => e.type === 'check' && e.attempt === 1 && !e.passed,
      );
      expect(rejected).toMatchObject({
        check: 'builds',
        reason: expect.stringMatching(
          /src\/smooth\.c:12:\d+: warning: extra tokens at the end of '#pragma omp task' are ignored.*fails the build/,
        ),
      });
      // The accepted patch set builds without the warning.
      await expectBuildsWithRealPatch(root, '6', 'clang', '-Werror=extra-tokens');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

/** Applies the suggestion's current patch set with GNU patch, as DiscoPoP's applicator would, and compiles. */
async function expectBuildsWithRealPatch(root: string, id: string, cc: string, werror: string): Promise<void> {
  const copy = path.join(mkdtempSync(path.join(tmpdir(), 'pr-verify-')), 'project');
  try {
    cpSync(root, copy, { recursive: true });
    const dotDir = path.join(copy, '.discopop');
    const mapping = new Map(
      readFileSync(path.join(dotDir, 'FileMapping.txt'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split('\t') as [string, string]),
    );
    for (const patchFile of readdirSync(path.join(dotDir, 'patch_generator', id))) {
      const target = mapping.get(patchFile.replace(/\.patch$/, ''))!.replace(root, copy);
      const patched = await runProcess({
        command: 'patch',
        args: ['--batch', target, path.join(dotDir, 'patch_generator', id, patchFile)],
        cwd: dotDir,
      });
      expect(patched, `patch ${id}/${patchFile}`).toMatchObject({ kind: 'exited', exitCode: 0 });
    }
    const built = await runProcess({
      command: 'make',
      args: ['-s', `CC=${cc}`, `CFLAGS=-fopenmp ${werror}`],
      cwd: copy,
    });
    expect(built, `make after suggestion ${id}`).toMatchObject({ kind: 'exited', exitCode: 0 });
  } finally {
    rmSync(path.dirname(copy), { recursive: true, force: true });
  }
}
