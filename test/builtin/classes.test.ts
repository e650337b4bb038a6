// Every fixture under fixtures/classes, under gcc and under clang: the generated patch (real
// diff -Naru) fails to compile with that compiler (or builds, where the fixture says clang accepts
// it); the built-in repairer either answers with a patch that GNU patch applies and the same
// compiler compiles, keeping each directive's construct above the same loop, or declines with a
// reason. A repair that rewrites code must leave the program's output unchanged with 1 and 4 threads.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinRepair } from '../../src/builtin/index.js';
import { applyPatchSet, checkDirectivesKept, mapToPatchSet, parsePatches } from '../../src/patch/index.js';
import {
  applyAndCompile,
  COMPILERS,
  directivesAboveLoops,
  expectationFor,
  expectedLoops,
  inBatches,
  judgeRun,
  prepareFixture,
  programOutputs,
  runOutputs,
  runsProgram,
  type CompilerName,
  type Fixture,
  type FixtureSpec,
  type Run,
} from './harness.js';

const fixturesDir = join(import.meta.dirname, '..', '..', 'fixtures', 'classes');

/** BUILTIN_CLASSES=invalid-reduction-16,invalid-reduction-17 runs only those fixtures (while adding one). */
async function loadFixtures(): Promise<Fixture[]> {
  const only = process.env.BUILTIN_CLASSES?.split(',');
  const names = (await readdir(fixturesDir)).sort().filter((name) => !only || only.includes(name));
  return Promise.all(
    names.map(async (name) => ({
      name,
      dir: join(fixturesDir, name),
      spec: JSON.parse(await readFile(join(fixturesDir, name, 'fixture.json'), 'utf8')) as FixtureSpec,
    })),
  );
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
const key = (family: CompilerName, name: string) => `${family}/${name}`;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'builtin-classes-'));
  const jobs = COMPILERS.flatMap((family) => fixtures.map((fixture) => ({ family, fixture })));
  await inBatches(jobs, 4, async ({ family, fixture }) => {
    const prepared = await prepareFixture(fixture, scratch, family);
    const result = prepared.task.build.ok ? null : await builtinRepair(prepared.task);
    const checked = result?.kind === 'answer' ? await applyAndCompile(prepared, result.text, scratch) : null;
    let outputs: Run['outputs'] = null;
    if (checked?.program) {
      outputs = {
        original: await runOutputs(
          join(scratch, family, fixture.name, 'original'),
          fixture,
          prepared.task.sources.get('1')!,
          family,
        ),
        repaired: await programOutputs(checked.program, fixture),
      };
    }
    runs.set(key(family, fixture.name), { prepared, result, checked, outputs });
  });
}, 600_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  if (process.env.BUILTIN_TABLE) await writeFile(process.env.BUILTIN_TABLE, JSON.stringify(measurements(), null, 1));
});

const isDirective = (line: string) => /^\s*#\s*pragma\s+omp\b/.test(line);
const isDeclare = (line: string) => /^\s*#\s*pragma\s+omp\s+declare\b/.test(line);

/** For `npm run bench -- builtin`: per compiler and fixture, the outcome judged as the harness judges it. */
function measurements() {
  return [...runs].map(([id, run]) => {
    const [family] = id.split('/');
    const { fixture } = run.prepared;
    return { family, fixture: fixture.name, class: fixture.spec.class, ...judgeRun(run, runsProgram(fixture)) };
  });
}

describe.each(COMPILERS)('%s', (family) => {
  describe.each(fixtures.map((fixture) => [fixture.name, fixture] as const))('%s', (name, fixture) => {
    const expected = expectationFor(fixture.spec, family);
    const run = () => runs.get(key(family, name))!;

    if (expected.expect === 'builds') {
      it(`the generated patch builds with ${family} (nothing to repair)`, () => {
        expect(run().prepared.task.build.ok, run().prepared.task.build.output).toBe(true);
      });
      return;
    }

    it(`the generated patch fails to compile with real ${family}`, () => {
      expect(run().prepared.task.build.ok, run().prepared.task.build.output).toBe(false);
    });

    if (expected.expect === 'declined') {
      it(`declines with a reason naming ${expected.reason}`, () => {
        const { result } = run();
        expect(result?.kind, JSON.stringify(result)).toBe('declined');
        expect(result?.kind === 'declined' ? result.reason : '').toContain(expected.reason);
      });
      return;
    }

    it('answers with a patch that applies, compiles and keeps every directive on its loop', () => {
      const { result, checked, prepared } = run();
      expect(result, JSON.stringify(result)).toMatchObject({ kind: 'answer' });
      expect(checked?.applied, checked?.patchOutput).toBe(true);
      expect(checked?.compiled, checked?.compileOutput).toBe(true);
      const original = prepared.task.sources.get('1')!;
      const withoutDeclare = (source: string) =>
        source
          .split('\n')
          .filter((line) => !isDeclare(line))
          .join('\n');
      const added = withoutOriginal(
        directivesAboveLoops(withoutDeclare(checked!.repaired)),
        directivesAboveLoops(original),
      );
      const loops = expectedLoops(original, fixture.spec);
      // A rewritten loop header is still the same loop (design.md, "Directive identity").
      if (fixture.spec.rewritesCode) {
        expect(added.map((entry) => entry.construct)).toEqual(loops.map((entry) => entry.construct));
        for (const entry of added) expect(entry.next).toMatch(/^for\b/);
      } else {
        expect(added).toEqual(loops);
      }
    });

    // design.md ("Directive identity"): a loop directive's target is its loop, so moving it from the
    // `if`/block/label that leads into the loop onto the loop keeps it.
    it('passes the directives-kept check (same construct above the same target)', () => {
      const verdict = checkDirectivesKept({
        original: run().prepared.task.sources.get('1')!,
        generated: run().prepared.task.patched.get('1')!,
        candidate: run().checked!.repaired,
      });
      expect(verdict).toMatchObject({ ok: true, nonDirectiveLinesChanged: fixture.spec.rewritesCode === true });
    });

    it('writes the expected directives with the expected rules', () => {
      const { result, checked, prepared } = run();
      const ownDirectives = (source: string) =>
        source
          .split('\n')
          .filter(isDirective)
          .map((line) => line.trim());
      const added = withoutOriginal(ownDirectives(checked!.repaired), ownDirectives(prepared.task.sources.get('1')!));
      expect(added).toEqual(expected.repaired);
      expect(result?.kind === 'answer' && result.rules).toEqual(expected.rules);
    });

    it('passes extraction and applies to the unpatched source in the patch engine, as with GNU patch', () => {
      const { result, checked, prepared } = run();
      const { task } = prepared;
      const projectRoot = prepared.sourcePath.slice(0, -(fixture.spec.file.length + 1));
      const mapped = mapToPatchSet(
        parsePatches(result?.kind === 'answer' ? result.text : '').patches,
        task.suggestion.files,
        projectRoot,
      );
      const generated = mapToPatchSet(
        parsePatches(task.generated.get('1')!).patches,
        task.suggestion.files,
        projectRoot,
      );
      expect(mapped.ok && [...mapped.byFileId.keys()]).toEqual(['1']);
      if (!mapped.ok || !generated.ok) return;
      const applied = applyPatchSet({
        sources: task.sources,
        candidate: mapped.byFileId,
        generated: generated.byFileId,
      });
      expect(applied).toMatchObject({ ok: true, basis: 'unpatched' });
      expect(applied.ok && applied.contents.get('1')).toBe(checked!.repaired);
    });

    it("answers under the generated patch's own header lines", () => {
      const { result, prepared } = run();
      const generatedHeader = prepared.task.generated.get('1')!.split('\n').slice(0, 2);
      const blocks = [...(result?.kind === 'answer' ? result.text : '').matchAll(/```diff\n([\s\S]*?)```/g)];
      expect(blocks).toHaveLength(1);
      expect(blocks[0]![1]!.split('\n').slice(0, 2)).toEqual(generatedHeader);
    });

    // Fixtures whose source has a `main` printing its result are run (all code-rewriting ones do).
    if (runsProgram(fixture)) {
      it(`prints the same as the original program with ${(fixture.spec.threads ?? ['1', '4']).join(', ')} threads`, () => {
        const { outputs } = run();
        expect(outputs?.original).toHaveLength((fixture.spec.threads ?? ['1', '4']).length);
        expect(outputs?.original?.[0]).not.toBe('');
        expect(outputs?.repaired).toEqual(outputs?.original);
      });
    }
    if (!fixture.spec.rewritesCode) {
      it('changes only the directive lines the generated patch added', () => {
        const { checked, prepared } = run();
        // Against the generated result, not the original: the generator also adds a missing final newline.
        const patched = prepared.task.patched.get('1')!.split('\n');
        const repaired = checked!.repaired.split('\n');
        expect(repaired.filter((line) => !isDirective(line))).toEqual(patched.filter((line) => !isDirective(line)));
        // Directives already in the original source stay byte for byte.
        for (const directive of prepared.task.sources.get('1')!.split('\n').filter(isDirective))
          expect(repaired).toContain(directive);
      });
    }
  });
});
