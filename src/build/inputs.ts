// What a build's result depends on: a resumed run reuses a discovery build only when none of it
// changed. The project tree is what a workspace copies (every entry's path, kind, size,
// modification time and link text; patch_repair/, the patch sets and --exclude left out), so any
// edit, added or removed file counts, and can be named; compile.sh and the settings by content;
// the compiler by what `$CC --version` and `$CXX --version` say under the settings' environment.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runProcess } from '../process.js';
import type { DotDiscopop } from '../formats/types.js';
import { treeLeftOut } from './location.js';
import { scanTree } from './tree.js';

const COMPILER_ID_TIMEOUT_MS = 30_000;

/**
 * What every build of this configuration depends on, patch sets aside: each entry of the project
 * tree by its path (kind, size, modification time, link text), and the rest by name (compile.sh,
 * settings, configuration and threads, compilers, the --exclude list), each a digest.
 */
export interface BuildInputs {
  tree: Record<string, string>;
  environment: Record<string, string>;
  /** The same inputs as run-state.json version 1 kept them (one digest), to compare a state an earlier release wrote. */
  version1: string;
}

export async function buildInputs(
  dp: DotDiscopop,
  o: { threads: number; exclude: readonly string[]; signal?: AbortSignal },
): Promise<BuildInputs> {
  // What --exclude leaves out of the workspaces cannot change a build; the list itself can.
  const { projectRoot, dotDir, skipped } = await treeLeftOut(dp, o.exclude);
  skipped.add(join(dotDir, 'patch_generator'));
  const manifest = await scanTree(projectRoot, (abs) => skipped.has(abs));
  const tree: Record<string, string> = {};
  // Version 1's digest, byte for byte as the earlier release computed it (folder sizes included).
  const version1 = createHash('sha256').update(`exclude\0${JSON.stringify([...o.exclude].sort())}\n`);
  for (const [rel, e] of [...manifest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    // A folder's own size and time only follow its entries, which are listed themselves.
    tree[rel] =
      e.kind === 'dir' ? 'dir' : `${e.kind} ${e.size} ${e.mtimeNs}${e.link === undefined ? '' : ` -> ${e.link}`}`;
    version1.update(`${rel}\0${e.kind}\0${e.size}\0${e.kind === 'dir' ? '' : e.mtimeNs}\0${e.link ?? ''}\n`);
  }
  const script = await readFile(dp.config.compileScript, 'utf8');
  const settings = JSON.stringify(Object.entries(dp.config.settings).sort());
  const compilers = await compilerIdentity(dp, o.signal);
  version1.update(
    `compile.sh\0${script}\nsettings\0${settings}\nconfig\0${dp.config.name}\0threads\0${o.threads}\ncompilers\0${compilers}\n`,
  );
  const digest = (text: string) => createHash('sha256').update(text).digest('hex');
  return {
    tree,
    environment: {
      'compile.sh': digest(script),
      settings: digest(settings),
      configuration: digest(`${dp.config.name}\0threads\0${o.threads}`),
      compilers: digest(compilers),
      '--exclude': digest(JSON.stringify([...o.exclude].sort())),
    },
    version1: version1.digest('hex'),
  };
}

/** One patch set's build: what every build depends on but the tree (compared entry by entry), plus the set itself. */
export function suggestionBuildDigest(environment: Record<string, string>, patchSetDigest: string): string {
  return createHash('sha256')
    .update(`${JSON.stringify(Object.entries(environment).sort())}\0${patchSetDigest}`)
    .digest('hex');
}

/** One patch set's build as run-state.json version 1 digested it: its inputs digest plus the set. */
export function version1BuildDigest(inputs: string, patchSetDigest: string): string {
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
