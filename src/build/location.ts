// Where a build ran, as its files remember it. CMake, autotools, Meson and others write absolute
// paths into what they generate (CMakeCache.txt, build.ninja, config.status, libtool .la files) and
// refuse to work, or work on the wrong tree, when those files are used from another folder. So the
// pool asks two questions: did the reference build write its workspace's path into its outputs
// (then no other workspace may copy them), and does the user's tree hold a build folder configured
// at the project's own path (then the reference build cannot work in a copy).
import { open, realpath, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, posix, relative } from 'node:path';
import fg from 'fast-glob';
import { UsageError } from '../errors.js';
import type { DotDiscopop } from '../formats/types.js';
import { repairDir } from '../store/paths.js';
import type { Manifest } from './tree.js';

const CHUNK = 1 << 20;
/**
 * How much of one file is searched. Build-state files (caches, generated makefiles, dependency
 * lists) are far smaller; a build that writes gigabytes of data must not pay for reading them.
 */
const SEARCHED_BYTES = 64 * CHUNK;
const PARALLEL_READS = 16;
/** ELF objects, executables and libraries, and ar archives: a path in them is debug information. */
const COMPILED_MAGIC = [Buffer.from([0x7f, 0x45, 0x4c, 0x46]), Buffer.from('!<arch>\n')];

/**
 * The files among `rels` (relative to `root`) whose first 64 MiB contain one of `needles`, sorted. Compiled
 * code is not counted: with `-g` every object names the folder it was compiled in (DW_AT_comp_dir),
 * yet no build reads that back, and counting it would make every debug build of a plain Makefile
 * project look path-dependent.
 */
export async function filesHoldingPath(
  root: string,
  rels: readonly string[],
  needles: readonly string[],
): Promise<string[]> {
  const patterns = [...new Set(needles)].filter((n) => n !== '').map((n) => Buffer.from(n));
  const found: string[] = [];
  let next = 0;
  const readers = Array.from({ length: Math.min(PARALLEL_READS, rels.length) }, async () => {
    while (next < rels.length) {
      const rel = rels[next++] as string;
      if (await holds(join(root, rel), patterns)) found.push(rel);
    }
  });
  await Promise.all(readers);
  return found.sort();
}

/**
 * The first of `rels` (relative to `root`) a compiler could read as a source or a header: anything
 * but compiled code and make's dependency lists (`.d`, which the compiler writes and never reads).
 */
export async function firstReadableByCompiler(root: string, rels: readonly string[]): Promise<string | undefined> {
  for (const rel of [...rels].sort()) {
    if (extname(rel) === '.d') continue;
    const handle = await open(join(root, rel), 'r');
    try {
      if (!(await isCompiledCode(handle))) return rel;
    } finally {
      await handle.close();
    }
  }
  return undefined;
}

async function isCompiledCode(handle: FileHandle): Promise<boolean> {
  const head = Buffer.alloc(8);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  return COMPILED_MAGIC.some((magic) => bytesRead >= magic.length && head.subarray(0, magic.length).equals(magic));
}

async function holds(file: string, patterns: readonly Buffer[]): Promise<boolean> {
  const longest = Math.max(...patterns.map((p) => p.length));
  const handle = await open(file, 'r');
  try {
    if (await isCompiledCode(handle)) return false;
    const chunk = Math.max(1, Math.min((await handle.stat()).size, CHUNK));
    const buffer = Buffer.allocUnsafe(chunk + longest);
    let kept = 0;
    let position = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, kept, chunk, position);
      position += bytesRead;
      const filled = kept + bytesRead;
      if (patterns.some((p) => buffer.subarray(0, filled).includes(p))) return true;
      if (bytesRead === 0 || position >= SEARCHED_BYTES) return false;
      // Keep the tail so a path split across two reads is still found.
      kept = Math.min(longest - 1, filled);
      buffer.copy(buffer, 0, filled - kept, filled);
    }
  } finally {
    await handle.close();
  }
}

/** Files whose presence says "this folder is a configured build folder", and which folder that is. */
const BUILD_STATE: ReadonlyArray<{ test: (rel: string) => boolean; folder: (rel: string) => string; what: string }> = [
  { test: (rel) => basename(rel) === 'CMakeCache.txt', folder: (rel) => posix.dirname(rel), what: 'CMakeCache.txt' },
  { test: (rel) => basename(rel) === 'config.status', folder: (rel) => posix.dirname(rel), what: 'config.status' },
  {
    test: (rel) => basename(rel) === 'coredata.dat' && basename(dirname(rel)) === 'meson-private',
    folder: (rel) => posix.dirname(posix.dirname(rel)),
    what: 'meson-private/coredata.dat',
  },
  { test: (rel) => basename(rel) === 'build.ninja', folder: (rel) => posix.dirname(rel), what: 'build.ninja' },
];

export interface ConfiguredFolder {
  /** Relative to the project root, '.' for the root itself. */
  folder: string;
  /** The file that records the original path, relative to the folder. */
  record: string;
}

/**
 * Build folders of the user's tree (as copied into `workspaceRoot`) whose build-state file holds
 * the project's own absolute path: configured at the original place, so a copy of them is stale.
 */
export async function foldersConfiguredAt(
  workspaceRoot: string,
  manifest: Manifest,
  projectRoots: readonly string[],
): Promise<ConfiguredFolder[]> {
  const candidates = [...manifest]
    .filter(([rel, e]) => e.kind === 'file' && BUILD_STATE.some((s) => s.test(rel)))
    .map(([rel]) => rel);
  const holding = await filesHoldingPath(workspaceRoot, candidates, projectRoots);
  const byFolder = new Map<string, ConfiguredFolder>();
  for (const rel of holding) {
    const state = BUILD_STATE.find((s) => s.test(rel))!;
    const folder = state.folder(rel);
    if (!byFolder.has(folder)) byFolder.set(folder, { folder, record: state.what });
  }
  return [...byFolder.values()].sort((a, b) => a.folder.localeCompare(b.folder));
}

/**
 * What build tools say when a build folder is used from a place other than where it was configured.
 * CMake's words only, for now: they are the ones seen and tested; other tools' failures get the
 * plain refusal with their own output.
 */
const CONFIGURED_ELSEWHERE: readonly RegExp[] = [
  /CMakeCache\.txt directory .* is different than the directory .* where CMakeCache\.txt was created/,
  /does not match the source .* used to generate cache/,
];

export function saysConfiguredElsewhere(output: string): boolean {
  return CONFIGURED_ELSEWHERE.some((pattern) => pattern.test(output));
}

/** A `--exclude` glob as the user wrote it, made relative to the project root for fast-glob. */
export function normalizeExclude(glob: string): string {
  return glob.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
}

export interface Exclusions {
  /** Absolute paths of the entries left out (a folder stands for everything below it). */
  paths: Set<string>;
  /** Globs that match nothing in the project: a typo the user wants to hear about. */
  unmatched: string[];
}

/**
 * The user's tree as every reading of it leaves it out: the real project and .discopop paths, and
 * the entries no build sees (patch_repair/ and what `--exclude` matches); callers add their own.
 */
export async function treeLeftOut(
  dp: DotDiscopop,
  exclude: readonly string[],
): Promise<{ projectRoot: string; dotDir: string; skipped: Set<string>; unmatched: string[] }> {
  const projectRoot = await realpath(dp.projectRoot);
  const dotDir = await realpath(dp.dotDir);
  const excluded = await expandExcludes({
    globs: exclude,
    projectRoot,
    dp,
    compileScript: join(projectRoot, relative(dp.projectRoot, dp.config.compileScript)),
  });
  return {
    projectRoot,
    dotDir,
    skipped: new Set([repairDir(dotDir), ...excluded.paths]),
    unmatched: excluded.unmatched,
  };
}

/**
 * Expands `--exclude` globs in the project root. A glob that would leave out what every build needs
 * (compile.sh, a source file DiscoPoP analysed, which the patches target) is a usage error: the run
 * would otherwise report every suggestion on that file as broken.
 */
export async function expandExcludes(o: {
  globs: readonly string[];
  projectRoot: string;
  dp: DotDiscopop;
  compileScript: string;
}): Promise<Exclusions> {
  const paths = new Set<string>();
  const unmatched: string[] = [];
  const problems: string[] = [];
  const needed = new Map<string, string>([[o.compileScript, 'every build runs it']]);
  for (const source of o.dp.files.values()) {
    if (!isAbsolute(source.relPath))
      needed.set(
        join(o.projectRoot, source.relPath),
        'source files DiscoPoP analysed (FileMapping.txt), which the patches change',
      );
  }
  for (const glob of o.globs) {
    const matches = await fg(normalizeExclude(glob), {
      cwd: o.projectRoot,
      onlyFiles: false,
      dot: true,
      followSymbolicLinks: false,
      suppressErrors: true,
    });
    if (matches.length === 0) unmatched.push(glob);
    const lost = new Map<string, string[]>();
    for (const rel of matches) {
      const abs = join(o.projectRoot, rel);
      paths.add(abs);
      for (const [file, why] of needed) {
        if (file === abs || file.startsWith(`${abs}/`))
          lost.set(why, [...new Set([...(lost.get(why) ?? []), file.slice(o.projectRoot.length + 1)])]);
      }
    }
    for (const [why, files] of lost) problems.push(`--exclude ${glob}: leaves out ${files.sort().join(', ')}: ${why}`);
  }
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
  return { paths, unmatched };
}
