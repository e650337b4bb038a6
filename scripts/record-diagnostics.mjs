// npm run diagnostics:record — compiles every source under fixtures/diagnostics/<class>/ with gcc 12,
// clang 14 and clang 19 (C with gcc/clang/clang-19, C++ with g++/clang++/clang++-19; `link/` also
// links) and writes what each printed next to it as <source>.gcc.txt, <source>.clang.txt and
// <source>.clang-19.txt. The tests read these recordings, so the parser is proven on real output of
// every compiler; re-run after a compiler upgrade.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProcess } from '../dist/process.js';

const root = fileURLToPath(new URL('../fixtures/diagnostics', import.meta.url));
const compilers = {
  gcc: { c: 'gcc', cxx: 'g++' },
  clang: { c: 'clang', cxx: 'clang++' },
  'clang-19': { c: 'clang-19', cxx: 'clang++-19' },
};

const out = await mkdtemp(join(tmpdir(), 'record-diagnostics-'));
let written = 0;
try {
  for (const dir of (await readdir(root, { withFileTypes: true })).filter((entry) => entry.isDirectory())) {
    for (const file of (await readdir(join(root, dir.name))).filter((name) => /\.(c|cpp)$/.test(name)).sort()) {
      const source = `${dir.name}/${file}`;
      for (const [family, commands] of Object.entries(compilers)) {
        const command = file.endsWith('.cpp') ? commands.cxx : commands.c;
        const link = dir.name === 'link';
        const args = ['-fopenmp', '-Wall', ...(link ? [] : ['-c']), source, '-o', join(out, link ? 'a.out' : 'a.o')];
        // The C locale: ASCII quotes, no colour; the parser's handling of both is tested on live output.
        // -Wall as in most projects' flags: gcc says it drops an unknown directive only with it.
        const outcome = await runProcess({
          command,
          args,
          cwd: root,
          env: { LC_ALL: 'C', LANG: 'C' },
          timeoutMs: 120_000,
        });
        if (outcome.kind !== 'exited')
          throw new Error(`${command} ${source}: ${outcome.kind === 'spawn-failed' ? outcome.message : outcome.kind}`);
        // Temporary object names differ on every run; a placeholder keeps re-recordings diffable.
        const printed = (outcome.stdout + outcome.stderr)
          .split(out)
          .join('<out>')
          .replace(/\/tmp\/[\w.-]+\.o\b/g, '/tmp/<object>.o');
        await writeFile(join(root, `${source}.${family}.txt`), printed);
        written++;
      }
    }
  }
} finally {
  await rm(out, { recursive: true, force: true });
}
console.log(`recorded ${written} compiler outputs under fixtures/diagnostics/`);
