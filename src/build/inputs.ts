// What a build's result depends on, as digests: a resumed run reuses a discovery build only when
// none of it changed. The project tree is what a workspace copies (every entry's path, kind, size,
// modification time and link text; patch_repair/, the patch sets and --exclude left out), so any
// edit, added or removed file counts; compile.sh and the settings by content; the compiler by what
// `$CC --version` and `$CXX --version` say under the settings' environment.
import { createHash } from 'node:crypto';
import { readFile, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { runProcess } from '../process.js';
import type { DotDiscopop } from '../formats/types.js';
import { expandExcludes } from './location.js';
import { scanTree } from './tree.js';

const COMPILER_ID_TIMEOUT_MS = 30_000;

/** The digest of everything every build of this configuration depends on, patch sets aside. */
export async function buildInputsDigest(dp: DotDiscopop, o: { threads: number; exclude: readonly string[]; signal?: AbortSignal }): Promise<string> {
  const hash = createHash('sha256');
  const projectRoot = await realpath(dp.projectRoot);
  const dotDir = await realpath(dp.dotDir);
  // What --exclude leaves out of the workspaces cannot change a build; the list itself can.
  const scriptInProject = isAbsolute(dp.config.compileScript) ? dp.config.compileScript : join(dp.config.dir, dp.config.compileScript);
  const excluded = await expandExcludes({ globs: o.exclude, projectRoot, dp, compileScript: join(projectRoot, relative(dp.projectRoot, scriptInProject)) });
  const skipped = new Set([join(dotDir, 'patch_repair'), join(dotDir, 'patch_generator'), ...excluded.paths]);
  hash.update(`exclude\0${JSON.stringify([...o.exclude].sort())}\n`);
  const manifest = await scanTree(projectRoot, (abs) => skipped.has(abs));
  for (const [rel, e] of [...manifest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    hash.update(`${rel}\0${e.kind}\0${e.size}\0${e.kind === 'dir' ? '' : e.mtimeNs}\0${e.link ?? ''}\n`);
  }
  hash.update(`compile.sh\0${await readFile(dp.config.compileScript, 'utf8')}\n`);
  hash.update(`settings\0${JSON.stringify(Object.entries(dp.config.settings).sort())}\n`);
  hash.update(`config\0${dp.config.name}\0threads\0${o.threads}\n`);
  hash.update(`compilers\0${await compilerIdentity(dp, o.signal)}\n`);
  return hash.digest('hex');
}

/** One patch set's build: the shared inputs plus the digest of the set itself. */
export function suggestionBuildDigest(inputs: string, patchSetDigest: string): string {
  return createHash('sha256').update(`${inputs}\0${patchSetDigest}`).digest('hex');
}

async function compilerIdentity(dp: DotDiscopop, signal?: AbortSignal): Promise<string> {
  const outcome = await runProcess({
    command: 'sh',
    args: ['-c', 'for c in "${CC:-cc}" "${CXX:-c++}"; do command -v "$c"; "$c" --version 2>&1 | head -n 1; done'],
    cwd: dp.config.dir,
    env: { ...dp.config.settings },
    timeoutMs: COMPILER_ID_TIMEOUT_MS,
    ...(signal && { signal }),
  });
  return outcome.kind === 'exited' ? outcome.stdout : `unknown (${outcome.kind})`;
}
