// DiscoPoP's own readers on real patch-repair runs of the demo: the Patch Repair tab's loader and
// table, and its @@PR_PROGRESS splitter over stdout and stderr merged as the tab reads them
// (modelled in test/helpers/discopop-readers.ts from the tab's rules). And the other way
// round: `show` and `report` on a folder DiscoPoP's tool wrote, and on one an earlier patch-repair
// version wrote. The cases run concurrently, each on its own copy of the demo.
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../../src/process.js';
import { CLI, readResults, runCli } from '../helpers/cli.js';
import { useFixture } from '../helpers/fixture.js';
import { demoAnswers } from '../helpers/demo-answers.js';
import { writeScriptedDescriptor } from '../helpers/scripted-agent.js';
import { DISCOPOP_RESULTS, tabRecords, tabRows, PROGRESS_MARK, progressEvents } from '../helpers/discopop-readers.js';

/** The run as DiscoPoP's tab starts it: stdout a pipe, stderr merged into it. */
async function runMerged(dotDir: string, args: string[]) {
  const quoted = [process.execPath, CLI, '--dot-dp-path', dotDir, ...args]
    .map((a) => `'${a.replaceAll("'", "'\\''")}'`)
    .join(' ');
  const outcome = await runProcess({ command: 'sh', args: ['-c', `${quoted} 2>&1`], cwd: dotDir, timeoutMs: 240_000 });
  if (outcome.kind !== 'exited') throw new Error(`patch-repair ${args.join(' ')}: ${outcome.kind}`);
  return outcome;
}

const tab = (dotDir: string) =>
  tabRows(tabRecords(readFileSync(path.join(dotDir, 'patch_repair', 'results.json'), 'utf8')));

describe.concurrent("DiscoPoP's tab on patch-repair runs", () => {
  it('a dry run: a row per considered suggestion, repairs "Repaired", and one JSON event per progress line with a suggestion event per record', async ({
    onTestFinished,
  }) => {
    const { dotDir } = useFixture('demo', { onTestFinished });
    const run = await runMerged(dotDir, ['--backend', 'builtin', '--dry-run', '--progress-lines']);
    expect(run.exitCode, run.stdout).toBe(0);

    const rows = tab(dotDir);
    expect(rows.map((r) => [r.suggestion, r.status])).toEqual([
      ['0', 'Compiles'],
      ['1', 'Compiles'],
      ['2', 'Repaired'],
      ['3', 'Repaired'],
      ['4', 'Repaired'],
      ['5', 'Repaired'],
      ['6', 'Repaired'],
      ['7', 'Skipped'],
      ['9', 'Repaired'],
    ]);
    expect(rows.find((r) => r.suggestion === '9')).toMatchObject({ hotspot: 'yes', files: '1 / 2' });
    expect(rows.find((r) => r.suggestion === '3')!.error).toContain("'acc' undeclared");
    // The generated patch sets are untouched: a dry run.
    expect(
      readResults(dotDir)
        .suggestions.filter((r) => r.status === 'repaired')
        .every((r) => !r.written),
    ).toBe(true);

    // Every prefixed line is one whole JSON object with sorted keys, whatever else shares the stream.
    const prefixed = run.stdout.split('\n').filter((line) => line.includes(PROGRESS_MARK));
    for (const line of prefixed) {
      expect(line.startsWith(PROGRESS_MARK), line).toBe(true);
      const value = JSON.parse(line.slice(PROGRESS_MARK.length)) as Record<string, unknown>;
      expect(Object.keys(value)).toEqual(Object.keys(value).sort());
    }
    const events = progressEvents(run.stdout);
    expect(events).toHaveLength(prefixed.length);
    expect(events.map((e) => e.event).filter((e, i, all) => all.indexOf(e) === i)).toEqual([
      'start',
      'discovery',
      'suggestion',
      'attempt',
      'done',
    ]);
    expect(events[0]).toEqual({
      event: 'start',
      candidates: [0, 1, 2, 3, 4, 5, 6, 7, 9],
      candidate_count: 9,
      backend: 'builtin',
      model: null,
      dry_run: true,
    });
    expect(events[1]).toEqual({
      event: 'discovery',
      built: [0, 1],
      failing: [2, 3, 4, 5, 6, 9],
      not_applied: [],
      reference_built: true,
    });
    const suggestions = events.filter((e) => e.event === 'suggestion');
    expect(suggestions.map((e) => e.suggestion_id).sort((a, b) => Number(a) - Number(b))).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 9,
    ]);
    // The tab's live table, built from these events alone, is the table results.json gives.
    const live = Object.fromEntries(suggestions.map((e) => [String(e.suggestion_id), e]));
    expect(tabRows(live)).toEqual(rows);
    const attempts = events.filter((e) => e.event === 'attempt');
    expect(attempts).toHaveLength(6);
    for (const a of attempts)
      expect(a).toMatchObject({ attempt: 1, turn: 0, template: 'builtin', outcome: 'accepted', detail: '' });
    expect(events.at(-1)).toMatchObject({ event: 'done', repaired: 6, failed: 0, unreachable: 0, considered: 9 });
    // The summary still reaches the same stream, as text the tab echoes.
    expect(run.stdout).toContain('Repaired, not written (--dry-run): 6');
  });

  it('an agent run: repaired, not repaired and "Patch not applicable" rows; attempt folders with DiscoPoP\'s names; attempt events per call', async ({
    onTestFinished,
  }) => {
    const { root, dotDir } = useFixture('demo', { onTestFinished });
    const answers = await demoAnswers(CLI);
    // Suggestion 6's generated patch no longer applies: a context line in the middle of its hunk differs from the source.
    const patch6 = path.join(dotDir, 'patch_generator', '6', '6.patch');
    writeFileSync(
      patch6,
      readFileSync(patch6, 'utf8').replace(
        '         a[i] = 0.5 * (a[i - 1] + a[i]);',
        '         a[i] = 0.25 * (a[i - 1] + a[i]);',
      ),
    );
    // 3 gets its correct answer, 5 and 6 an answer without a patch.
    const { descriptorFile } = await writeScriptedDescriptor({
      dir: path.join(path.dirname(root), 'agent'),
      replies: [{ when: [['parallelizing suggestion 3 (', answers['3']!.replaceAll('<root>', root)]] }],
    });
    const run = await runMerged(dotDir, [
      '-s',
      '3,5,6',
      '--backend',
      descriptorFile,
      '--no-builtin',
      '--agent-jobs',
      '1',
      '--prompts',
      '1',
      '--retries',
      '1',
      '--progress-lines',
    ]);
    expect(run.exitCode, run.stdout).toBe(1);

    expect(tab(dotDir)).toEqual([
      {
        suggestion: '3',
        hotspot: 'yes',
        status: 'Repaired',
        files: '1 / 1',
        attempts: '1',
        error: expect.stringContaining("'acc' undeclared"),
      },
      {
        suggestion: '5',
        hotspot: 'yes',
        status: 'Not repaired',
        files: '0 / 1',
        attempts: '2',
        error: expect.stringContaining("'w'"),
      },
      {
        suggestion: '6',
        hotspot: 'maybe',
        status: 'Patch not applicable',
        files: '-',
        attempts: '2',
        error: expect.any(String),
      },
    ]);
    const six = readResults(dotDir).suggestions.find((r) => r.id === '6')!;
    expect(six.reason).toContain('regenerating them with DiscoPoP is the other fix');

    // Every call has its folder, under DiscoPoP's names.
    const attemptDir = (id: string, n: number) => path.join(dotDir, 'patch_repair', 'attempts', id, String(n));
    expect(readdirSync(attemptDir('3', 1)).sort()).toEqual([
      'call.json',
      'candidate',
      'canonical',
      'prompt.txt',
      'response.txt',
      'verdict.json',
    ]);
    expect(readdirSync(path.join(attemptDir('3', 1), 'candidate'))).toEqual(['5.patch']);
    for (const n of [1, 2]) {
      expect(readdirSync(attemptDir('5', n)).sort()).toEqual([
        'call.json',
        'prompt.txt',
        'rejection.txt',
        'response.txt',
        'verdict.json',
      ]);
      expect(readFileSync(path.join(attemptDir('5', n), 'response.txt'), 'utf8')).toBe(
        'no scripted reply matches this prompt',
      );
      expect(readFileSync(path.join(attemptDir('5', n), 'rejection.txt'), 'utf8')).toMatch(/^extraction: /);
    }

    const events = progressEvents(run.stdout);
    expect(events.find((e) => e.event === 'discovery')).toEqual({
      event: 'discovery',
      built: [],
      failing: [3, 5, 6],
      not_applied: [6],
      reference_built: true,
    });
    const attempts = events
      .filter((e) => e.event === 'attempt')
      .map((e) => [e.suggestion, e.attempt, e.turn, e.template, e.outcome]);
    expect(attempts).toEqual([
      [3, 1, 0, 'rung-1', 'accepted'],
      [5, 1, 0, 'rung-1', 'extraction'],
      [5, 2, 1, 'follow-up', 'extraction'],
      [6, 1, 0, 'rung-1', 'extraction'],
      [6, 2, 1, 'follow-up', 'extraction'],
    ]);
    expect(events.filter((e) => e.event === 'suggestion').map((e) => [e.suggestion_id, e.status])).toEqual([
      [3, 'repaired'],
      [5, 'failed'],
      [6, 'not_applied'],
    ]);
    expect(events.at(-1)).toMatchObject({ event: 'done', repaired: 1, failed: 2, considered: 3 });

    // show and report read the new shape and the new names.
    const shown = await runCli(dotDir, ['show', '5', '--dot-dp-path', dotDir]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('rejected by extraction');
    const report = await runCli(dotDir, ['report', '--dot-dp-path', dotDir]);
    expect(report.exitCode, report.stderr).toBe(0);
    expect(readFileSync(path.join(dotDir, 'patch_repair', 'report.html'), 'utf8')).toContain(
      'href="attempts/5/1/response.txt"',
    );
  });

  it("show, report and the next run read a results.json and progress.jsonl DiscoPoP's tool wrote", async ({
    onTestFinished,
  }) => {
    const { dotDir } = useFixture('demo', { onTestFinished });
    const repairDir = path.join(dotDir, 'patch_repair');
    mkdirSync(path.join(repairDir, 'attempts', '1', '1', 'candidate'), { recursive: true });
    writeFileSync(path.join(repairDir, 'results.json'), DISCOPOP_RESULTS);
    // progress.jsonl as results.py's ProgressReporter writes it: json.dumps(sort_keys=True), one event a line.
    const log = [
      {
        backend: 'claude',
        candidate_count: 3,
        candidates: [1, 2, 10],
        dry_run: false,
        event: 'start',
        model: 'sonnet',
      },
      { built: [], event: 'discovery', failing: [1, 2, 10], not_applied: [2], reference_built: true },
      {
        attempt: 1,
        detail: 'no diff block',
        event: 'attempt',
        outcome: 'extraction',
        suggestion: 1,
        template: 'first',
        turn: 0,
      },
      { attempt: 2, detail: '', event: 'attempt', outcome: 'accepted', suggestion: 1, template: 'first', turn: 1 },
      { event: 'suggestion', ...JSON.parse(DISCOPOP_RESULTS).suggestions['1'] },
      { considered: 3, duration_s: 342.3, event: 'done', failed: 2, repaired: 1, unreachable: 0 },
    ];
    writeFileSync(path.join(repairDir, 'progress.jsonl'), log.map((e) => JSON.stringify(e)).join('\n') + '\n');
    writeFileSync(path.join(repairDir, 'attempts', '1', '1', 'prompt.txt'), 'Repair suggestion 1');
    writeFileSync(path.join(repairDir, 'attempts', '1', '1', 'response.txt'), 'I cannot see a patch.');
    writeFileSync(path.join(repairDir, 'attempts', '1', '1', 'rejection.txt'), 'extraction: no diff block');
    const cli = (...args: string[]) => runCli(dotDir, [...args, '--dot-dp-path', dotDir]);

    const shown = await cli('show');
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("Written by DiscoPoP's own discopop_patch_repair");
    expect(shown.stdout).toMatch(/^1 +YES +1,2 +repaired/m);
    expect(shown.stdout).toMatch(/^2 +MAYBE +- +not_applied/m);
    expect(shown.stdout).toMatch(/^10 +- +1 +failed/m);
    const one = await cli('show', '1');
    expect(one.exitCode, one.stderr).toBe(0);
    expect(one.stdout).toContain(
      "  1  rejected at extraction (no verdict.json: DiscoPoP's tool wrote this attempt)\n       no diff block",
    );
    expect((await cli('report')).exitCode).toBe(0);
    expect(readFileSync(path.join(repairDir, 'report.html'), 'utf8')).toContain('data-status="not_applied"');

    // The next run moves DiscoPoP's pair to history/, where show --runs still lists it (exit 1: the demo's generated patches fail).
    expect((await cli('--discover-only')).exitCode).toBe(1);
    const runs = await cli('show', '--runs');
    expect(runs.exitCode, runs.stderr).toBe(0);
    const [discopopRun] = runs.stdout.trim().split('\n');
    expect(discopopRun).toMatch(/^discopop-\d{8}T\d{6} .* repair +repaired 1, failed 1, not_applied 1$/);
    const old = await cli('show', '--run', discopopRun!.split(' ')[0]!);
    expect(old.exitCode, old.stderr).toBe(0);
  });

  it('show and report read a run an earlier patch-repair wrote: results.json format 1, old record meanings, old attempt file names', async ({
    onTestFinished,
  }) => {
    const { dotDir } = useFixture('demo', { onTestFinished });
    expect(
      (await runCli(dotDir, ['--dot-dp-path', dotDir, '--backend', 'builtin', '--dry-run', '-s', '2,3'])).exitCode,
    ).toBe(0);
    const repairDir = path.join(dotDir, 'patch_repair');
    // Back to what format 1 wrote: the array, dry-run repairs not_applied, no written or duration_s; the same in the log.
    const legacy = (record: Record<string, unknown>) => {
      const { written, duration_s: _d, ...rest } = record;
      return rest.status === 'repaired' && written === false ? { ...rest, status: 'not_applied' } : rest;
    };
    const results = readResults(dotDir);
    writeFileSync(
      path.join(repairDir, 'results.json'),
      JSON.stringify({ version: 1, run: results.run, suggestions: results.suggestions.map(legacy) }, null, 2),
    );
    const log = readFileSync(path.join(repairDir, 'progress.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    writeFileSync(
      path.join(repairDir, 'progress.jsonl'),
      log
        .map((e) => JSON.stringify(e.record ? { ...e, record: legacy(e.record as Record<string, unknown>) } : e))
        .join('\n') + '\n',
    );
    const attempt = path.join(repairDir, 'attempts', '3', '1');
    renameSync(path.join(attempt, 'response.txt'), path.join(attempt, 'answer.txt'));
    renameSync(path.join(attempt, 'candidate'), path.join(attempt, 'extracted'));

    const shown = await runCli(dotDir, ['show', '--dot-dp-path', dotDir]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Repaired, not written (--dry-run): 2');
    const one = await runCli(dotDir, ['show', '3', '--dot-dp-path', dotDir]);
    expect(one.exitCode, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^ {2}1 {2}built-in \(builtin: .*\): accepted$/m);
    expect((await runCli(dotDir, ['report', '--dot-dp-path', dotDir])).exitCode).toBe(0);
    const page = readFileSync(path.join(repairDir, 'report.html'), 'utf8');
    expect(page).toContain('href="attempts/3/1/answer.txt"');
    expect(page).toContain('href="attempts/3/1/extracted/5.patch"');
    expect(page).toMatch(/<section id="s-3" class="suggestion" data-status="repaired">/);
    // The next run moves it to history/ under its own run id.
    expect((await runCli(dotDir, ['--dot-dp-path', dotDir, '--discover-only'])).exitCode).toBe(1);
    expect(readdirSync(path.join(repairDir, 'history'))).toEqual([results.run.id]);
  });
});
