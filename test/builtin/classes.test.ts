// Every fixture under fixtures/classes: the generated patch (real diff -Naru) fails to compile
// with real gcc/g++; the built-in repairer either answers with a patch that GNU patch applies and
// gcc compiles, keeping each directive's construct above the same loop, or declines with a reason.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinRepair } from '../../src/builtin/index.js';
import { applyPatchSet, checkDirectivesKept, mapToPatchSet, parsePatches } from '../../src/patch/index.js';
import type { BuiltinResult } from '../../src/formats/task.js';
import {
  applyAndCompile, directivesAboveLoops, expectedLoops, prepareFixture,
  type Checked, type Fixture, type FixtureSpec, type Prepared,
} from './harness.js';

const fixturesDir = join(import.meta.dirname, '..', '..', 'fixtures', 'classes');

interface Run {
  prepared: Prepared;
  result: BuiltinResult;
  checked: Checked | null;
}

async function loadFixtures(): Promise<Fixture[]> {
  const names = (await readdir(fixturesDir)).sort();
  return Promise.all(names.map(async (name) => ({
    name,
    dir: join(fixturesDir, name),
    spec: JSON.parse(await readFile(join(fixturesDir, name, 'fixture.json'), 'utf8')) as FixtureSpec,
  })));
}

/** Runs `work` over `items` with at most `limit` at a time (gcc dominates; two cores in CI). */
async function inBatches<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  }));
  return results;
}

/** The directives of `all` that are not among the original source's own directives. */
function withoutOriginal<T>(all: T[], original: T[]): T[] {
  const left = original.map((entry) => JSON.stringify(entry));
  return all.filter((entry) => {
    const index = left.indexOf(JSON.stringify(entry));
    if (index < 0) return true;
    left.splice(index, 1);
    return false;
  });
}

const fixtures = await loadFixtures();
const runs = new Map<string, Run>();
let scratch = '';

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'builtin-classes-'));
  await inBatches(fixtures, 4, async (fixture) => {
    const prepared = await prepareFixture(fixture, scratch);
    const result = await builtinRepair(prepared.task);
    const checked = result.kind === 'answer' ? await applyAndCompile(prepared, result.text, scratch) : null;
    runs.set(fixture.name, { prepared, result, checked });
  });
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  if (process.env.BUILTIN_TABLE) process.stdout.write(measurementTable());
});

/** docs/builtin.md's table: per class, fixtures repaired (applies + compiles) and handed on. */
function measurementTable(): string {
  const countDirectives = (source: string) => source.split('\n').filter((line) => /^\s*#\s*pragma\s+omp\b/.test(line)).length;
  const table = new Map<string, { fixtures: number; repaired: number; handedOn: number; dropped: number }>();
  for (const fixture of fixtures) {
    const run = runs.get(fixture.name);
    if (!run) continue;
    const row = table.get(fixture.spec.class) ?? { fixtures: 0, repaired: 0, handedOn: 0, dropped: 0 };
    row.fixtures++;
    if (run.result.kind === 'answer' && run.checked?.compiled) row.repaired++;
    else row.handedOn++;
    if (run.checked && countDirectives(run.checked.repaired) < countDirectives(run.prepared.task.patched.get('1')!)) row.dropped++;
    table.set(fixture.spec.class, row);
  }
  const lines = ['| class | fixtures | repaired (applies + compiles) | handed on (declined) | repairs dropping a directive |', '|---|---|---|---|---|'];
  for (const [name, row] of [...table].sort()) lines.push(`| ${name} | ${row.fixtures} | ${row.repaired} | ${row.handedOn} | ${row.dropped} |`);
  return `${lines.join('\n')}\n`;
}

describe.each(fixtures.map((fixture) => [fixture.name, fixture] as const))('%s', (name, fixture) => {
  it('the generated patch fails to compile with real gcc', () => {
    const run = runs.get(name)!;
    expect(run.prepared.task.build.ok, run.prepared.task.build.output).toBe(false);
  });

  if (fixture.spec.expect === 'repaired') {
    it('answers with a patch that applies, compiles and keeps every directive on its loop', () => {
      const run = runs.get(name)!;
      expect(run.result, JSON.stringify(run.result)).toMatchObject({ kind: 'answer' });
      expect(run.checked?.applied, run.checked?.patchOutput).toBe(true);
      expect(run.checked?.compiled, run.checked?.compileOutput).toBe(true);
      const original = run.prepared.task.sources.get('1')!;
      const added = withoutOriginal(directivesAboveLoops(run.checked!.repaired), directivesAboveLoops(original));
      expect(added).toEqual(expectedLoops(original, fixture.spec));
    });

    // design.md ("Directive identity"): a loop directive's target is its loop, so moving it from the
    // `if`/block/label that leads into the loop onto the loop keeps it.
    it('passes the directives-kept check (same construct above the same target)', () => {
      const run = runs.get(name)!;
      const verdict = checkDirectivesKept({
        original: run.prepared.task.sources.get('1')!,
        generated: run.prepared.task.patched.get('1')!,
        candidate: run.checked!.repaired,
      });
      expect(verdict).toMatchObject({ ok: true, nonDirectiveLinesChanged: false });
    });

    it('writes the expected directives with the expected rules', () => {
      const run = runs.get(name)!;
      const ownDirectives = (source: string) => source.split('\n').filter((line) => /^\s*#\s*pragma\s+omp\b/.test(line)).map((line) => line.trim());
      const added = withoutOriginal(ownDirectives(run.checked!.repaired), ownDirectives(run.prepared.task.sources.get('1')!));
      expect(added).toEqual(fixture.spec.repaired);
      expect(run.result.kind === 'answer' && run.result.rules).toEqual(fixture.spec.rules);
    });

    it('passes extraction and applies to the unpatched source in the patch engine, as with GNU patch', () => {
      const run = runs.get(name)!;
      const { task } = run.prepared;
      const projectRoot = run.prepared.sourcePath.slice(0, -(fixture.spec.file.length + 1));
      const mapped = mapToPatchSet(parsePatches(run.result.kind === 'answer' ? run.result.text : '').patches, task.suggestion.files, projectRoot);
      const generated = mapToPatchSet(parsePatches(task.generated.get('1')!).patches, task.suggestion.files, projectRoot);
      expect(mapped.ok && [...mapped.byFileId.keys()]).toEqual(['1']);
      if (!mapped.ok || !generated.ok) return;
      const applied = applyPatchSet({ sources: task.sources, candidate: mapped.byFileId, generated: generated.byFileId });
      expect(applied).toMatchObject({ ok: true, basis: 'unpatched' });
      expect(applied.ok && applied.contents.get('1')).toBe(run.checked!.repaired);
    });

    it('answers under the generated patch\'s own header lines', () => {
      const run = runs.get(name)!;
      const generatedHeader = run.prepared.task.generated.get('1')!.split('\n').slice(0, 2);
      const blocks = [...(run.result.kind === 'answer' ? run.result.text : '').matchAll(/```diff\n([\s\S]*?)```/g)];
      expect(blocks).toHaveLength(1);
      expect(blocks[0]![1]!.split('\n').slice(0, 2)).toEqual(generatedHeader);
    });

    it('changes only the directive lines the generated patch added', () => {
      const run = runs.get(name)!;
      const isDirective = (line: string) => /^\s*#\s*pragma\s+omp\b/.test(line);
      // Against the generated result, not the original: the generator also adds a missing final newline.
      const patched = run.prepared.task.patched.get('1')!.split('\n');
      const repaired = run.checked!.repaired.split('\n');
      expect(repaired.filter((line) => !isDirective(line))).toEqual(patched.filter((line) => !isDirective(line)));
      // Directives already in the original source stay byte for byte.
      for (const directive of run.prepared.task.sources.get('1')!.split('\n').filter(isDirective)) expect(repaired).toContain(directive);
    });
  } else {
    it(`declines with a reason naming ${fixture.spec.reason}`, () => {
      const run = runs.get(name)!;
      expect(run.result.kind).toBe('declined');
      expect(run.result.kind === 'declined' ? run.result.reason : '').toContain(fixture.spec.reason);
    });
  }
});
