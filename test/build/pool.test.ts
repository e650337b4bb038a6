// BuildPool with real gcc, make and GNU patch on a small project.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fingerprint, generatorPatch, insertBefore, makeProject, patchSetOf, poolPerTest } from './project.js';
import { isRunning } from '../helpers/process-state.js';

const start = poolPerTest();

describe('BuildPool', () => {
  it("reports a patch that does not apply in GNU patch's own words and leaves no .orig or .rej", async () => {
    const p = await makeProject();
    const b = await start(p);
    expect((await b.referenceBuild()).ok).toBe(true);
    const patch = await generatorPatch(p, 'src/b.c', insertBefore('for (i = 0', '#pragma omp parallel for'));
    // The context no longer matches anywhere: the loop line was rewritten.
    const stale = patch.replaceAll('for (i = 0; i < N; i++) {', 'for (k = 0; k < M; k++) {');
    const result = await b.build('7', patchSetOf({ 'src/b.c': stale }), 'discovery');
    expect(result).toMatchObject({ ok: false, failedAt: 'patch', errorClass: 'patch-does-not-apply' });
    expect(result.output).toContain('patching file src/b.c');
    expect(result.output).toMatch(/Hunk #1 FAILED at \d+/);
    expect(result.firstError).toMatch(/^src\/b\.c: Hunk #1 FAILED/);
    // The next build in the same workspace sees the pristine file: the half-patched one was rolled back.
    const good = await b.build('8', patchSetOf({ 'src/b.c': patch }), 'discovery');
    expect(good.ok).toBe(true);
    const leftovers = [...(await fingerprint(b.root)).keys()].filter((f) => /\.(orig|rej)$/.test(f));
    expect(leftovers).toEqual([]);
  });

  it("applies with the same drift tolerance as DiscoPoP's applicator (offset lines)", async () => {
    const p = await makeProject();
    const b = await start(p);
    await b.referenceBuild();
    const patch = await generatorPatch(p, 'src/a.c', insertBefore('for (i = 0', '#pragma omp parallel for'));
    const drifted = patch.replace(
      /@@ -(\d+),(\d+) \+(\d+),(\d+) @@/,
      (_m, a, b2, c, d) => `@@ -${Number(a) + 2},${b2} +${Number(c) + 2},${d} @@`,
    );
    const result = await b.build('1', patchSetOf({ 'src/a.c': drifted }), 'discovery');
    expect(result.ok).toBe(true);
    expect(result.output).toMatch(/Hunk #1 succeeded at \d+ \(offset -2 lines\)/);
  });

  it('rebuilds only the patched unit, and the next build sees the restored source and object', async () => {
    const p = await makeProject();
    const b = await start(p);
    await b.referenceBuild();
    const markA = await generatorPatch(p, 'src/a.c', (t) => t.replace('"a-original"', '"a-patched"'));
    const first = await b.build('1', patchSetOf({ 'src/a.c': markA }), 'discovery');
    expect(first.output).toContain('mark=a-patched');
    const pragmaB = await generatorPatch(
      p,
      'src/b.c',
      insertBefore('for (i = 0', '#pragma omp parallel for private(i)'),
    );
    const second = await b.build('2', patchSetOf({ 'src/b.c': pragmaB }), 'discovery');
    expect(second.ok).toBe(true);
    expect(second.output).toContain('mark=a-original');
    expect(second.output).toContain('-c -o src/b.o src/b.c');
    expect(second.output).not.toContain('src/a.o src/a.c');
    expect(second.output).not.toContain('src/main.o src/main.c');
  });

  it('recompiles everything when a patch touches a header, so a Makefile without header dependencies gives no false pass', async () => {
    const p = await makeProject();
    const b = await start(p);
    await b.referenceBuild();
    const broken = await generatorPatch(
      p,
      'src/common.h',
      insertBefore('#define N 64', 'int header_value = not_declared_anywhere;'),
    );
    const result = await b.build('3', patchSetOf({ 'src/common.h': broken }), 'discovery');
    expect(result).toMatchObject({ ok: false, failedAt: 'compile' });
    expect(result.output).toContain('not_declared_anywhere');
    const after = await b.build(
      '4',
      patchSetOf({
        'src/b.c': await generatorPatch(p, 'src/b.c', insertBefore('for (i = 0', '#pragma omp parallel for')),
      }),
      'discovery',
    );
    expect(after.ok).toBe(true);
  });

  it('recompiles everything when a patch touches a .c file that another file includes', async () => {
    const p = await makeProject();
    const b = await start(p);
    await b.referenceBuild();
    const broken = await generatorPatch(
      p,
      'src/scale.c',
      insertBefore('return i * 2.0;', 'int local = not_declared_anywhere;'),
    );
    const result = await b.build('5', patchSetOf({ 'src/scale.c': broken }), 'discovery');
    expect(result).toMatchObject({ ok: false, failedAt: 'compile' });
    expect(result.output).toContain('not_declared_anywhere');
  });

  it('runs compile.sh with the DiscoPoP environment and the configuration folder of the copy as cwd', async () => {
    const script = [
      '#!/bin/sh',
      'echo "EXTRA=$EXTRA OMP=$OMP_NUM_THREADS CFLAGS=$CFLAGS"',
      'test "$(pwd -P)" = "$(cd "$DP_PROJECT_ROOT_DIR/.discopop/project/configs/default" && pwd -P)" && echo cwd-is-config-folder',
      'test "$DOT_DISCOPOP" = "$DP_PROJECT_ROOT_DIR/.discopop" && echo dot-discopop-in-copy',
      'test "$DP_PROJECT_ROOT_DIR" != "$USER_ROOT" && test -f "$DP_PROJECT_ROOT_DIR/src/a.c" && echo root-is-a-copy',
      'test -e "$DOT_DISCOPOP/patch_repair" || echo no-patch-repair-in-copy',
      'echo to-stderr >&2',
    ].join('\n');
    const p = await makeProject({ compileSh: script });
    p.dp.config.settings = { ...p.dp.config.settings, EXTRA: 'from-settings', USER_ROOT: p.root };
    const b = await start(p);
    const result = await b.referenceBuild();
    expect(result.ok).toBe(true);
    expect(result.output).toContain('EXTRA=from-settings OMP=1 CFLAGS=-O0 -fopenmp');
    for (const line of [
      'cwd-is-config-folder',
      'dot-discopop-in-copy',
      'root-is-a-copy',
      'no-patch-repair-in-copy',
      'to-stderr',
    ]) {
      expect(result.output).toContain(line);
    }
  });

  it("runs a compile.sh without the execute bit with bash, as DiscoPoP's newer project manager does", async () => {
    const p = await makeProject({ compileSh: 'echo "shell=${BASH_VERSION:+bash}"\n' });
    await chmod(p.dp.config.compileScript, 0o644);
    const b = await start(p);
    expect(await b.referenceBuild()).toMatchObject({ ok: true, output: 'shell=bash\n' });
  });

  it('stops a build that runs too long and kills its whole process group', async () => {
    const markerDir = await mkdtemp(join(tmpdir(), 'pr-marker-'));
    const pidFile = join(markerDir, 'grandchild.pid');
    // A grandchild in the background that outlives its parent unless the whole group is killed.
    const script = `#!/bin/sh\ncd "$DP_PROJECT_ROOT_DIR"\nif grep -q SLOW src/a.c; then sh -c 'echo $$ > ${pidFile}; exec sleep 600' & sleep 600; fi\nmake CC="$CC" CFLAGS="$CFLAGS"\n`;
    const slow = await makeProject({ compileSh: script });
    const b = await start(slow, { timeoutMs: 8000 });
    expect((await b.referenceBuild()).ok).toBe(true);
    const patch = await generatorPatch(slow, 'src/a.c', insertBefore('for (i = 0', '/* SLOW */'));
    const result = await b.build('5', patchSetOf({ 'src/a.c': patch }), 'discovery');
    expect(result.failedAt).toBe('timeout');
    expect(result.firstError).toMatch(/did not finish within/);
    expect(isRunning(Number(await readFile(pidFile, 'utf8')))).toBe(false);
    await rm(markerDir, { recursive: true, force: true });
  });

  it("never writes the user's tree, and builds in parallel give the same answers", async () => {
    const p = await makeProject();
    const before = await fingerprint(p.root);
    const b = await start(p, { jobs: 2 });
    await b.referenceBuild();
    const good = await generatorPatch(p, 'src/a.c', insertBefore('for (i = 0', '#pragma omp parallel for'));
    const bad = await generatorPatch(p, 'src/b.c', insertBefore('for (i = 0', '#pragma omp parallel for private(t)'));
    const header = await generatorPatch(p, 'src/common.h', insertBefore('#define N 64', '/* harmless */'));
    const results = await Promise.all([
      b.build('1', patchSetOf({ 'src/a.c': good }), 'discovery'),
      b.build('2', patchSetOf({ 'src/b.c': bad }), 'discovery'),
      b.build('3', patchSetOf({ 'src/common.h': header, 'src/a.c': good }), 'verify'),
      b.build('4', patchSetOf({ 'src/b.c': bad, 'src/a.c': good }), 'discovery'),
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, false, true, false]);
    expect(results[1]?.output).toMatch(/error: .t. undeclared/);
    expect(await fingerprint(p.root)).toEqual(before);
    const started = p.events
      .filter((e) => e.type === 'build-started')
      .map((e) => (e.type === 'build-started' ? e.id : ''));
    expect(started.sort()).toEqual(['1', '2', '3', '4', null].sort());
    expect(p.events.filter((e) => e.type === 'build-finished')).toHaveLength(5);
  });

  it("re-points links into the project at the copy, so a build writing through one leaves the user's tree alone", async () => {
    const script =
      '#!/bin/sh\necho built > "$DP_PROJECT_ROOT_DIR/out-link/marker" && cat "$DP_PROJECT_ROOT_DIR/out-link/marker"\n';
    const p = await makeProject({ compileSh: script });
    await mkdir(join(p.root, 'out'));
    await symlink(join(p.root, 'out'), join(p.root, 'out-link'));
    const b = await start(p);
    const result = await b.referenceBuild();
    expect(result).toMatchObject({ ok: true, output: 'built\n' });
    expect(await readdir(join(p.root, 'out'))).toEqual([]);
  });

  it('leaves no workspace after dispose', async () => {
    const p = await makeProject();
    const b = await start(p, { jobs: 2 });
    await b.referenceBuild();
    const good = await generatorPatch(p, 'src/a.c', insertBefore('for (i = 0', '#pragma omp parallel for'));
    await Promise.all([
      b.build('1', patchSetOf({ 'src/a.c': good }), 'discovery'),
      b.build('2', patchSetOf({ 'src/a.c': good }), 'discovery'),
    ]);
    await b.dispose();
    expect(await readdir(p.scratch)).toEqual([]);
  });

  it('stops running builds on abort, rejects the waiting ones, and removes every workspace', async () => {
    const markerDir = await mkdtemp(join(tmpdir(), 'pr-marker-'));
    const started = join(markerDir, 'started');
    const script = `#!/bin/sh\ncd "$DP_PROJECT_ROOT_DIR"\nif grep -q SLOW src/a.c; then touch ${started}; sleep 600; fi\nmake CC="$CC" CFLAGS="$CFLAGS"\n`;
    const p = await makeProject({ compileSh: script });
    const controller = new AbortController();
    const b = await start(p, { jobs: 1, signal: controller.signal });
    await b.referenceBuild();
    const slow = await generatorPatch(p, 'src/a.c', insertBefore('for (i = 0', '/* SLOW */'));
    const running = b.build('1', patchSetOf({ 'src/a.c': slow }), 'discovery').catch((error: unknown) => error);
    const waiting = b.build('2', patchSetOf({ 'src/a.c': slow }), 'discovery').catch((error: unknown) => error);
    while (!existsSync(started)) await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort(new Error('interrupted'));
    expect(await running).toMatchObject({ message: 'interrupted' });
    expect(await waiting).toMatchObject({ message: 'interrupted' });
    await b.dispose();
    expect(await readdir(p.scratch)).toEqual([]);
    await rm(markerDir, { recursive: true, force: true });
  });
});
