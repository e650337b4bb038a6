// --resume across an upgrade (issue 39 §3): fixtures/resume-v1 holds a run-state.json of version 1,
// recorded by the last release that wrote it (c7cff13; fixtures/resume-v1/RECORDED.md says how): the
// demo, interrupted by SIGTERM after its third write-back. Today's build, run with --resume through
// the built CLI, real gcc and GNU patch, takes that run over without redoing what it finished: the
// three repairs it wrote are kept and not tried again, no discovery build runs again, and only
// the suggestions it had not settled are repaired; the run ends as the uninterrupted run ends.
// The version-1 file is left as it was and moves to history/ with the rest of the run.
import { cpSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/formats/events.js';
import { readEvents, readResults, runCli } from '../helpers/cli.js';

const FIXTURE = path.resolve(import.meta.dirname, '../../fixtures/resume-v1/project');
/** Where the recorded run ran: version 1's digests cover the patch sets, whose headers name it. */
const ROOT = '/tmp/pr-v1-resume/demo';
const RECORDED_RUN = '20261204T050627-778f44';
const MTIME_S = 1764806400;

/** The recorded project at its own path, every entry with the modification time it had, the git markers gone. */
function placeRecorded(): void {
  rmSync(path.dirname(ROOT), { recursive: true, force: true });
  cpSync(FIXTURE, ROOT, { recursive: true });
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (name === '.gitkeep') unlinkSync(full);
      else if (statSync(full).isDirectory()) walk(full);
      else utimesSync(full, MTIME_S, MTIME_S);
    }
    utimesSync(dir, MTIME_S, MTIME_S);
  };
  walk(ROOT);
}

describe('--resume of a run an earlier release stopped (run-state.json version 1)', () => {
  it('keeps its written repairs, reuses its discovery builds, repairs only what it left, and keeps the version-1 file', async () => {
    placeRecorded();
    try {
      const dotDir = path.join(ROOT, '.discopop');
      const stateFile = path.join(dotDir, 'patch_repair', 'run-state.json');
      const recordedState = readFileSync(stateFile, 'utf8');
      expect(JSON.parse(recordedState)).toMatchObject({ version: 1, run_id: RECORDED_RUN, complete: false });
      const before = readResults(dotDir);
      const written = new Map(
        before.suggestions
          .flatMap((s) => s.written_files)
          .map((file) => [file, readFileSync(path.join(dotDir, file), 'utf8')]),
      );
      expect([...written.keys()]).toEqual([
        'patch_generator/3/5.patch',
        'patch_generator/4/4.patch',
        'patch_generator/5/2.patch',
      ]);

      const run = await runCli(ROOT, ['--dot-dp-path', dotDir, '--backend', 'builtin', '--resume']);
      expect(run.exitCode, run.stdout + run.stderr).toBe(0);
      expect(run.stdout + run.stderr).toContain(
        `resuming run ${RECORDED_RUN}: 3 suggestion(s) kept as finished, 5 discovery build(s) reused`,
      );

      const after = readResults(dotDir);
      expect(Object.fromEntries(after.suggestions.map((s) => [s.id, s.status]))).toEqual({
        0: 'ok',
        1: 'ok',
        2: 'repaired',
        3: 'repaired',
        4: 'repaired',
        5: 'repaired',
        6: 'repaired',
        9: 'repaired',
        7: 'skipped',
      });
      // The repairs the earlier release wrote stand as it recorded them, and as it wrote them.
      for (const id of ['3', '4', '5'])
        expect(
          after.suggestions.find((s) => s.id === id),
          `suggestion ${id}`,
        ).toMatchObject(before.suggestions.find((s) => s.id === id)!);
      for (const [file, text] of written) expect(readFileSync(path.join(dotDir, file), 'utf8'), file).toBe(text);

      // This run's own work: no discovery build, no try of a suggestion the earlier run finished.
      const events = readEvents(dotDir);
      const own = events.slice(events.findIndex((e) => e.type === 'resumed'));
      expect(own.filter((e) => e.type === 'build-started' && e.purpose === 'discovery')).toEqual([]);
      expect(
        own
          .filter((e): e is Extract<RunEvent, { type: 'discovered' }> => e.type === 'discovered')
          .map((e) => [e.id, e.reused]),
      ).toEqual([
        ['0', true],
        ['1', true],
        ['2', true],
        ['6', true],
        ['9', true],
      ]);
      // The earlier run answered 2 and 6 before it stopped (attempts/<id>/1): those answers are checked, not asked again.
      const tried = readdirSync(path.join(FIXTURE, '.discopop', 'patch_repair', 'attempts')).sort();
      expect(tried).toEqual(['2', '3', '4', '5', '6']);
      const called = own
        .filter((e): e is Extract<RunEvent, { type: 'call-started' }> => e.type === 'call-started')
        .map((e) => e.id);
      expect(called).toEqual(['9']);
      expect(after.suggestions.filter((s) => s.builtin.tries > 1)).toEqual([]);

      // The version-1 file was read, not rewritten: it moved to history/ with the rest of that run.
      expect(readFileSync(path.join(dotDir, 'patch_repair', 'history', RECORDED_RUN, 'run-state.json'), 'utf8')).toBe(
        recordedState,
      );
      expect(JSON.parse(readFileSync(stateFile, 'utf8'))).toMatchObject({ version: 2, complete: true });
    } finally {
      rmSync(path.dirname(ROOT), { recursive: true, force: true });
    }
  });
});
