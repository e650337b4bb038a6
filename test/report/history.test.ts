// `show` and `report` on earlier runs, through the built CLI on the demo with the built-in
// repairer: a repair run, then a --discover-only run that moves it to history/, then --restore.
// The repair run's page stays reachable, and both commands say what became of its write-backs.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readResults, runCli } from '../helpers/cli.js';
import { useFixture } from '../helpers/fixture.js';

const REPAIRED = ['2', '3', '4', '5', '6', '9'];

describe('show and report read any run, and know what happened since', () => {
  it('lists the runs, keeps the repair run reviewable after --discover-only, and marks its repairs restored after --restore', async () => {
    const { dotDir } = useFixture('demo');
    const cli = (...args: string[]) => runCli(dotDir, [...args, '--dot-dp-path', dotDir]);

    expect((await cli('--backend', 'builtin')).exitCode).toBe(0);
    const repairRun = readResults(dotDir).run.id;
    expect((await cli('--discover-only')).exitCode).toBe(0);
    const discoverRun = readResults(dotDir).run.id;

    const runs = await cli('show', '--runs');
    expect(runs.exitCode, runs.stderr).toBe(0);
    const lines = runs.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^${repairRun}  \\S+  repair  ok 2, repaired 6, skipped 1$`));
    expect(lines[1]).toMatch(new RegExp(`^${discoverRun}  \\S+  discover-only  ok 8, skipped 1 \\(last run\\)$`));

    // The last run repaired nothing; the repair run's page is still there to write, from history/.
    const report = await cli('report', '--run', repairRun);
    expect(report.exitCode, report.stderr).toBe(0);
    const page = path.join(dotDir, 'patch_repair', 'history', repairRun, 'report.html');
    expect(report.stdout.trim()).toBe(`Wrote ${page}`);
    const html = readFileSync(page, 'utf8');
    for (const id of REPAIRED)
      expect(html).toMatch(
        new RegExp(
          `<section id="s-${id}" class="suggestion" data-status="repaired">[^]*?data-change-summary>Change: built-in rule `,
        ),
      );
    // Its patches are still what it wrote: nothing to say about them.
    expect(html).not.toContain('data-since');
    expect(html).toContain(`href="attempts/3/1/verdict.json"`);
    expect(existsSync(path.join(path.dirname(page), 'attempts', '3', '1', 'verdict.json'))).toBe(true);

    expect((await cli('--restore')).exitCode).toBe(0);
    const shown = await cli('show', '--run', repairRun);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`Run ${repairRun} (repair, backend builtin)`);
    expect(shown.stdout).toContain(
      `Since this run (patch_generator/ no longer holds what it wrote):\n${REPAIRED.map((id) => `  ${id}: restored since`).join('\n')}`,
    );
    const one = await cli('show', '3', '--run', repairRun);
    expect(one.stdout).toContain(
      'Patch set on disk: restored since (patch_generator/3/ no longer holds what this run wrote)',
    );

    expect((await cli('report', '--run', repairRun)).exitCode).toBe(0);
    const after = readFileSync(page, 'utf8');
    expect(
      after
        .match(/<tr data-id="\d+" data-status="repaired">[^]*?<\/tr>/g)!
        .every((row) => row.includes('data-since="restored since"')),
    ).toBe(true);
    expect(after).toContain(
      '<p class="warning" data-since="restored since">Patch set on disk: restored since (patch_generator/3/ no longer holds what this run wrote).</p>',
    );

    const unknown = await cli('show', '--run', 'no-such-run');
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr.trim()).toBe(
      `patch-repair: ${path.join(dotDir, 'patch_repair', 'history')}: no run no-such-run (runs: ${repairRun}, ${discoverRun}; see show --runs)`,
    );
  });

  it('tells a patch set the generator rewrote from one a later run repaired again', async () => {
    const { dotDir } = useFixture('demo');
    const cli = (...args: string[]) => runCli(dotDir, [...args, '--dot-dp-path', dotDir]);
    expect((await cli('--backend', 'builtin', '-s', '3')).exitCode).toBe(0);
    const first = readResults(dotDir).run.id;
    expect((await cli('show', '3')).stdout).not.toContain('Patch set on disk');

    // DiscoPoP's generator runs again: the generated patch is back, with a new timestamp.
    const written = path.join(dotDir, 'patch_generator', '3', '5.patch');
    const generated = readFileSync(path.join(dotDir, 'patch_repair', 'backups', '3', '5.patch'), 'utf8');
    writeFileSync(written, generated.replace(/\t\d{4}-[^\n]*/, '\t2027-01-01 00:00:00.000000000 +0000'));
    expect((await cli('show', '3')).stdout).toContain(
      'Patch set on disk: patch regenerated since (patch_generator/3/ no longer holds what this run wrote)',
    );

    expect((await cli('--backend', 'builtin', '-s', '3')).exitCode).toBe(0);
    expect((await cli('show', '3', '--run', first)).stdout).toContain('Patch set on disk: repaired again since');
    expect((await cli('show', '3')).stdout).not.toContain('Patch set on disk');
  });
});
