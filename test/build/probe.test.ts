// Where the OpenMP probe goes: above the loop a generated loop directive is meant for, in a
// translation unit, never in a header, and nowhere when no such loop exists.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { placeProbe, PROBE_DIRECTIVE } from '../../src/build/index.js';
import { applyFilePatch, parsePatches } from '../../src/patch/index.js';
import { runProcess } from '../../src/process.js';
import type { Suggestion } from '../../src/formats/types.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pr-probe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KERNEL =
  'void scale(int n, double *x, const double *f) {\n    const int m = n;\n    for (int i = 0; i < m; i++)\n        x[i] *= f[i];\n}\n';

function suggestion(id: string, files: { rel: string; source: string; patch: string }[]): Suggestion {
  return {
    id,
    dir: path.join(dir, id),
    pattern: null,
    hotspot: 'YES',
    files: files.map((file, index) => {
      const abs = path.join(dir, file.rel);
      writeFileSync(abs, file.source);
      return {
        fileId: String(index + 1),
        patchPath: path.join(dir, `${index + 1}.patch`),
        text: file.patch,
        source: { id: String(index + 1), path: abs, relPath: file.rel },
      };
    }),
  };
}

/** DiscoPoP's line numbers put the directive above the declaration, not the loop. */
const ABOVE_DECLARATION =
  '--- a\n+++ b\n@@ -1,3 +1,4 @@\n void scale(int n, double *x, const double *f) {\n+    #pragma omp parallel for shared(x,f) \n     const int m = n;\n     for (int i = 0; i < m; i++)\n';

describe('placeProbe', () => {
  it('stands above the loop the generated directive is meant for, guarded by _OPENMP, and GNU-patch-ready', async () => {
    const placement = await placeProbe([suggestion('1', [{ rel: 'k.c', source: KERNEL, patch: ABOVE_DECLARATION }])]);
    expect(placement).toMatchObject({ fileId: '1', relPath: 'k.c', line: 3 });
    const applied = applyFilePatch(KERNEL, parsePatches(placement!.patch).patches[0]!);
    expect(applied.result).toBe(KERNEL.replace('    for', `#ifdef _OPENMP\n    ${PROBE_DIRECTIVE}\n#endif\n    for`));
  });

  it('matches a CRLF source byte for byte, so GNU patch inserts it there too', async () => {
    const crlf = KERNEL.replace(/\n/g, '\r\n');
    const placement = await placeProbe([suggestion('1', [{ rel: 'w.c', source: crlf, patch: ABOVE_DECLARATION }])]);
    writeFileSync(path.join(dir, 'probe.patch'), placement!.patch);
    const patched = await runProcess({ command: 'patch', args: ['--batch', 'w.c', 'probe.patch'], cwd: dir });
    expect(patched).toMatchObject({ kind: 'exited', exitCode: 0 });
    expect(readFileSync(path.join(dir, 'w.c'), 'utf8')).toBe(
      crlf.replace('    for', `#ifdef _OPENMP\r\n    ${PROBE_DIRECTIVE}\r\n#endif\r\n    for`),
    );
  });

  it('skips a header and takes the next suggestion with a translation unit', async () => {
    const header = suggestion('1', [{ rel: 'k.h', source: KERNEL, patch: ABOVE_DECLARATION }]);
    const unit = suggestion('2', [{ rel: 'u.cpp', source: KERNEL, patch: ABOVE_DECLARATION }]);
    expect(await placeProbe([header, unit])).toMatchObject({ relPath: 'u.cpp', line: 3 });
  });

  it('finds no place when no generated loop directive has a loop in its block', async () => {
    const task =
      '--- a\n+++ b\n@@ -1,2 +1,3 @@\n void scale(int n, double *x, const double *f) {\n+    #pragma omp task \n     const int m = n;\n';
    expect(
      await placeProbe([
        suggestion('1', [{ rel: 'k.h', source: KERNEL, patch: ABOVE_DECLARATION }]),
        suggestion('2', [{ rel: 't.c', source: KERNEL, patch: task }]),
      ]),
    ).toBeNull();
  });
});
