// The whole product on the bundled demo, through the built CLI, with the built-in repairer and
// real gcc or clang, GNU patch and diff: what a user runs after `npm ci`. DiscoPoP's project
// manager writes CC=clang into new configurations, so the main flow runs under both.
import { mkdtempSync, readFileSync, readdirSync, cpSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../../src/process.js';
import { type ResultsFile } from '../../src/formats/results.js';
import { useFixture } from '../helpers/fixture.js';
import { changedPaths, snapshotTree } from '../helpers/tree-snapshot.js';
import { readResults, runCli } from '../helpers/cli.js';

const BROKEN = ['2', '3', '4', '5', '6', '9'];

/**
 * The demo's configuration as DiscoPoP writes it, with the compiler of the run. clang accepts
 * suggestion 6's misspelt `depends` with a warning (dropping the rest of the line), so it builds.
 */
const COMPILERS = [
  { cc: 'gcc', cxx: 'g++', broken: BROKEN },
  { cc: 'clang', cxx: 'clang++', broken: ['2', '3', '4', '5', '9'] },
];

function useCompiler(dotDir: string, cc: string, cxx: string): void {
  const settings = path.join(dotDir, 'project', 'configs', 'tiny', 'seq_settings.json');
  writeFileSync(settings, JSON.stringify({ ...JSON.parse(readFileSync(settings, 'utf8')), CC: cc, CXX: cxx }));
}

const cli = (dotDir: string, ...args: string[]) => runCli(dotDir, ['--dot-dp-path', dotDir, ...args]);

function statuses(file: ResultsFile): Record<string, string> {
  return Object.fromEntries(file.suggestions.map((record) => [record.id, record.status]));
}

const userFiles = (rel: string) => rel.startsWith(path.join('.discopop', 'patch_repair'));

describe.each(COMPILERS)('patch-repair on the demo with the built-in repairer, CC=$cc', ({ cc, cxx, broken }) => {
  it('repairs every broken suggestion, writes only verified canonical patch sets, and --restore undoes it', async () => {
    const { root, dotDir } = useFixture('demo');
    useCompiler(dotDir, cc, cxx);
    const before = snapshotTree(root, userFiles);

    const run = await cli(dotDir, '--backend', 'builtin');
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const first = readResults(dotDir);
    const expected = Object.fromEntries(['0', '1', '2', '3', '4', '5', '6', '9'].map((id) => [id, broken.includes(id) ? 'repaired' : 'ok']));
    expect(statuses(first)).toEqual({ ...expected, '7': 'skipped' });
    expect(run.stdout).toContain('Agent unreachable: 0 (no answer; not a failed repair)');
    for (const id of broken) {
      const record = first.suggestions.find((s) => s.id === id)!;
      expect(record).toMatchObject({ backend: 'builtin', attempts: 0, builtin: { tries: 1, accepted: true }, accepted_attempt: 1 });
      expect(record.error_class).not.toBeNull();
    }

    // Only the repaired files of the repaired suggestions changed in the user's tree; suggestion 9
    // spans two files and only one of them needed a repair.
    const changed = first.suggestions.flatMap((s) => s.changed_files.map((fileId) => path.join('.discopop', 'patch_generator', s.id, `${fileId}.patch`)));
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
      const directives = (text: string) => text.split('\n').filter((line) => /^\+\s*#\s*pragma omp/.test(line)).length;
      expect(directives(repaired)).toBe(directives(generated));
      await expectBuildsWithRealPatch(root, id, cc);
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
});

describe('patch-repair on the demo with the built-in repairer', () => {
  it('--dry-run leaves patch_generator/ byte-identical, timestamps included, and reports not_applied; --write-log keeps the log', async () => {
    const { root, dotDir } = useFixture('demo');
    const before = snapshotTree(root, userFiles);
    const run = await cli(dotDir, '--backend', 'builtin', '--dry-run', '--write-log', '--log', 'DEBUG');
    expect(run.exitCode, run.stderr).toBe(0);
    const log = readFileSync(path.join(dotDir, 'patch_repair', 'patch_repair.log'), 'utf8');
    expect(log).toMatch(/^\S+ DEBUG /m);
    expect(log).toMatch(/^\S+ INFO +Repairing suggestion 2 /m);
    expect(changedPaths(before, snapshotTree(root, userFiles), { mtimes: true })).toEqual([]);
    const file = readResults(dotDir);
    expect(BROKEN.map((id) => statuses(file)[id])).toEqual(BROKEN.map(() => 'not_applied'));
    // The verified patches are still there to read, in the transcripts.
    const canonical = path.join(dotDir, 'patch_repair', 'attempts', '2', '1', 'canonical');
    expect(readdirSync(canonical).length).toBeGreaterThan(0);
  });

  it('--discover-only names the broken suggestions with their error class and exits 1', async () => {
    const { root, dotDir } = useFixture('demo');
    const before = snapshotTree(root, userFiles);
    const run = await cli(dotDir, '--discover-only');
    expect(run.exitCode).toBe(1);
    const file = readResults(dotDir);
    expect(BROKEN.map((id) => statuses(file)[id])).toEqual(BROKEN.map(() => 'failed'));
    expect(file.suggestions.find((s) => s.id === '3')).toMatchObject({ attempts: 0, error_class: 'undeclared-in-clause' });
    expect(file.suggestions.find((s) => s.id === '5')).toMatchObject({ error_class: 'invalid-privatization' });
    expect(readdirSync(path.join(dotDir, 'patch_repair')).sort()).toEqual(['progress.jsonl', 'results.json', 'scratch.json']);
    expect(changedPaths(before, snapshotTree(root, userFiles), { mtimes: true })).toEqual([]);
  });
});

/** Applies the suggestion's current patch set with GNU patch, as DiscoPoP's applicator would, and compiles. */
async function expectBuildsWithRealPatch(root: string, id: string, cc: string): Promise<void> {
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
      const patched = await runProcess({ command: 'patch', args: ['--batch', target, path.join(dotDir, 'patch_generator', id, patchFile)], cwd: dotDir });
      expect(patched, `patch ${id}/${patchFile}`).toMatchObject({ kind: 'exited', exitCode: 0 });
    }
    const built = await runProcess({ command: 'make', args: ['-s', `CC=${cc}`, 'CFLAGS=-fopenmp -Werror=unknown-pragmas'], cwd: copy });
    expect(built, `make after suggestion ${id}`).toMatchObject({ kind: 'exited', exitCode: 0 });
  } finally {
    rmSync(path.dirname(copy), { recursive: true, force: true });
  }
}
