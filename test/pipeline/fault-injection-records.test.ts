// A resumed run is one run: killed at each repair-stage point under gcc (and at the first and last
// under clang) and continued with --resume, its results.json, `show` and review page are the uninterrupted run's
// (docs/fault-injection.md). `show` runs in-process through the CLI's own entry, main(). A few kills
// are real SIGKILLs; the others are copies of the uninterrupted run taken while it was paused there.
import { resultsOf } from '../../src/formats/results-document.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { report, show } from '../../src/report/index.js';
import { instantiateFixture } from '../../scripts/instantiate-fixture.mjs';
import { cli, pausedCopies } from './fault-runs.js';

/**
 * A resumed run is one run (design.md, "One run, one record"): killed at a repair-stage point and
 * continued with --resume, its results.json (funnel, statuses, accepted tries, changed files,
 * usage), `show` and `show <id>` are those of the same run uninterrupted, times and run ids aside.
 * Suggestion 6's failure under clang is only a warning that the directive was ignored
 * (failsBuild): a discovery build reused by --resume must still fail.
 */
const RECORD_SELECTED = ['2', '6', '9'];
const RECORD_KILL_POINTS: Record<'gcc' | 'clang', string[]> = {
  gcc: [
    'pipeline.after-discovery',
    'pipeline.before-repair@2',
    'verify.after-extraction@2',
    'verify.after-canonicalize@2',
    'verify.after-builds@2',
    'pipeline.after-repair@2',
    'pipeline.before-write-back@2',
    'write-back.after-journal-prepared@2',
    'write-back.after-rename@2',
    'write-back.before-journal-removed@2',
    'write-back.after-written@2',
    'pipeline.after-write-back@2',
  ],
  // What a kill point does to the record does not depend on the compiler; what clang changes is
  // suggestion 6's ignored-directive failure, which --resume reuses from discovery.
  clang: ['pipeline.after-discovery', 'write-back.after-written@2'],
};

// Killed for real: the end of discovery under both compilers, and under gcc a kill between checks
// and one inside a write-back. Every other point is taken from the reference run itself, paused
// there (pausedCopies in fault-runs.ts).
const KILLED: Record<'gcc' | 'clang', string[]> = {
  gcc: ['pipeline.after-discovery', 'verify.after-canonicalize@2', 'write-back.after-rename@2'],
  clang: ['pipeline.after-discovery'],
};

describe.each(['gcc', 'clang'] as const)(
  "a run killed in the repair stage under %s, then --resume, has the uninterrupted run's record",
  (cc) => {
    let reference: RunRecordView;
    const paused = RECORD_KILL_POINTS[cc].filter((point) => !KILLED[cc].includes(point));

    // The reference run: uninterrupted, only stopped at each paused point while the test copies it.
    const copies = pausedCopies({
      points: paused,
      args: recordArgs,
      prepare: ({ dotDir }) => useCompiler(dotDir, cc),
      ended: async ({ root, dotDir, workDir }, run) => {
        expect(run).toMatchObject({ kind: 'exited', exitCode: 0 });
        reference = await recordOf(dotDir, root, workDir);
        expect(reference.statuses).toEqual({ '2': 'repaired', '6': 'repaired', '9': 'repaired' });
      },
    });

    async function expectResumedRecord({
      root,
      dotDir,
      workDir,
    }: {
      root: string;
      dotDir: string;
      workDir: string;
    }): Promise<void> {
      const resumed = await cli(dotDir, [...recordArgs(workDir), '--resume']);
      expect(resumed, resumed.kind === 'exited' ? resumed.stdout + resumed.stderr : '').toMatchObject({
        kind: 'exited',
        exitCode: 0,
      });
      if (resumed.kind === 'exited') expect(resumed.stderr).toMatch(/resuming run \S+:/);
      const record = await recordOf(dotDir, root, workDir);
      expect(record.results).toEqual(reference.results);
      expect(record.show).toEqual(reference.show);
      expect(record.page).toEqual(reference.page);
    }

    describe.concurrent('', () => {
      it.each(KILLED[cc])(
        '%s',
        async (point) => {
          const { root, dotDir } = instantiateFixture('demo');
          const workDir = mkdtempSync(path.join(tmpdir(), 'pr-fault-work-'));
          try {
            useCompiler(dotDir, cc);
            const killed = await cli(dotDir, recordArgs(workDir), { PATCH_REPAIR_FAULT: point });
            expect(killed, `${point} was never reached`).toMatchObject({ kind: 'signaled', signal: 'SIGKILL' });
            await expectResumedRecord({ root, dotDir, workDir });
          } finally {
            rmSync(workDir, { recursive: true, force: true });
            rmSync(path.dirname(root), { recursive: true, force: true });
          }
        },
        300_000,
      );
    });

    // One after another: they put their copies back at the reference run's paths.
    describe('', () => {
      it.each(paused)('%s', async (point) => expectResumedRecord(await copies.putBack(point)), 300_000);
    });
  },
);

function recordArgs(workDir: string): string[] {
  return [
    '--backend',
    'builtin',
    '-j',
    '1',
    '--agent-jobs',
    '1',
    '-s',
    RECORD_SELECTED.join(','),
    '--work-dir',
    workDir,
  ];
}

function useCompiler(dotDir: string, cc: 'gcc' | 'clang'): void {
  const settings = path.join(dotDir, 'project', 'configs', 'tiny', 'seq_settings.json');
  writeFileSync(
    settings,
    JSON.stringify({ ...JSON.parse(readFileSync(settings, 'utf8')), CC: cc, CXX: cc === 'gcc' ? 'g++' : 'clang++' }),
  );
}

interface RunRecordView {
  statuses: Record<string, string>;
  results: unknown;
  show: string;
  /** The review page `patch-repair report` writes. */
  page: string;
}

/** results.json, `show` and the review page of the last run, without what differs between any two runs: ids, times, durations, the fixture's root and --work-dir. */
async function recordOf(dotDir: string, root: string, workDir: string): Promise<RunRecordView> {
  const results = resultsOf(JSON.parse(readFileSync(path.join(dotDir, 'patch_repair', 'results.json'), 'utf8')));
  const statuses = Object.fromEntries(results.suggestions.map((s: { id: string; status: string }) => [s.id, s.status]));
  const { id: _id, started: _started, finished: _finished, resumed_from: _from, options, ...run } = results.run;
  const { resume: _resume, ...kept } = options;
  const shown: string[] = [];
  for (const id of [null, ...RECORD_SELECTED]) {
    const out = await showInProcess(dotDir, id);
    shown.push(`exit ${out.exitCode}\n${out.stdout}${out.stderr}`);
  }
  const anyRun = (text: string) =>
    text
      .replaceAll(root, '<root>')
      .replaceAll(workDir, '<work>')
      .replace(/\d{8}T\d{6}-[0-9a-f]{6}/g, '<run>')
      .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z/g, '<time>')
      .replace(/^(---|\+\+\+) (\S+)\t.*$/gm, '$1 $2')
      // Phase times are this invocation's own: a resumed run never spends the uninterrupted one's.
      .replace(/^Time: .*\n/gm, '')
      .replace(/<dt>time<\/dt><dd>[^<]*<\/dd>/g, '');
  await report({ dotDir, stream: new Writable({ write: (_chunk, _encoding, done) => done() }) });
  // diff2html numbers its file blocks at random; the page lists the run's options, --resume among them.
  const page = anyRun(readFileSync(path.join(dotDir, 'patch_repair', 'report.html'), 'utf8'))
    .replace(/d2h-\d+/g, 'd2h-<n>')
    .replace(/&#34;resume&#34;: (true|false)/g, '&#34;resume&#34;: <resume>');
  return {
    statuses,
    results: withoutTimes({ ...results, run: { ...run, options: kept } }, root, workDir),
    show: anyRun(shown.join('\n')),
    page,
  };
}

/** `patch-repair show [id] --dot-dp-path <dotDir>` through the CLI's main(), its output as a pipe would carry it. */
async function showInProcess(
  dotDir: string,
  id: string | null,
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      stdout += chunk.toString();
      done();
    },
  });
  const exitCode = await main(['show', '--dot-dp-path', dotDir, ...(id ? [id] : [])], {
    cwd: dotDir,
    env: {},
    writeOut: (text) => (stdout += text),
    writeErr: (text) => (stderr += text),
    loadPipeline: () => Promise.reject(new Error('show never runs the pipeline')),
    loadReport: async () => ({
      show: (o) => show({ ...o, stream, env: {} }),
      report: () => Promise.reject(new Error('show never writes the report')),
    }),
  });
  return { exitCode, stdout, stderr };
}

function withoutTimes(value: unknown, root: string, workDir: string): unknown {
  if (typeof value === 'string') return value.replaceAll(root, '<root>').replaceAll(workDir, '<work>');
  if (Array.isArray(value)) return value.map((item) => withoutTimes(item, root, workDir));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !/^(duration_ms|durationMs|duration_s|started|finished|t|phases)$/.test(key))
      .map(([key, item]) => [key, withoutTimes(item, root, workDir)]),
  );
}
