// One worker's private copy of the project. After the reference build the workspace has a
// baseline (every entry with its times); each suggestion build starts from exactly that state and
// is rolled back to it afterwards, restoring only what the build changed. So a make-based build
// recompiles just the translation units the patch set touches, and nothing one build leaves behind
// (a patched source, its object, a half-written file after a timeout) can leak into the next.
import { copyFile, readFile, writeFile, utimes, rm, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { OUTSIDE_DOT_DISCOPOP } from './compile.js';
import { materialize, scanTree, seconds, statEntry, type Entry, type Manifest } from './tree.js';

/** Translation units: a patch confined to these can rely on make's own dependency on the source. */
const TRANSLATION_UNITS = new Set(['.c', '.cc', '.cpp', '.cxx', '.C']);
/** What "every source" means when a header or build file changed: units and everything they include. */
const SOURCE_LIKE = new Set([
  ...TRANSLATION_UNITS,
  '.c++',
  '.h',
  '.hh',
  '.hpp',
  '.hxx',
  '.H',
  '.h++',
  '.inc',
  '.inl',
  '.ipp',
  '.tcc',
  '.tpp',
]);

/** Where a rollback finds the reference bytes of a file. */
export interface ReferenceSources {
  /** The user's project root: read-only, never written. */
  projectRoot: string;
  /** The .discopop folder when it is outside the project root (--project-root): its copy is `.discopop` in a workspace. */
  outsideDotDir?: string;
  /** Copies of the files the reference build created or rewrote, by relative path. */
  outputsRoot: string;
  outputs: ReadonlySet<string>;
}

export function referenceSourceOf(sources: ReferenceSources): (rel: string) => string {
  const original = projectSourceOf(sources);
  return (rel) => (sources.outputs.has(rel) ? join(sources.outputsRoot, rel) : original(rel));
}

/** Where a workspace entry comes from in the user's tree. */
export function projectSourceOf(
  sources: Pick<ReferenceSources, 'projectRoot' | 'outsideDotDir'>,
): (rel: string) => string {
  const { outsideDotDir } = sources;
  const prefix = `${OUTSIDE_DOT_DISCOPOP}/`;
  return (rel) =>
    outsideDotDir !== undefined && rel.startsWith(prefix)
      ? join(outsideDotDir, rel.slice(prefix.length))
      : join(sources.projectRoot, rel);
}

export function isTranslationUnit(relPath: string): boolean {
  return TRANSLATION_UNITS.has(extname(relPath));
}

export class Workspace {
  private maxMtimeNs = 0n;
  private included?: Set<string>;

  constructor(
    readonly root: string,
    private baseline: Manifest,
    private readonly granularityNs: bigint,
  ) {
    this.updateMaxMtime();
  }

  /** Makes the current state the one every later build starts from. */
  async captureBaseline(): Promise<Manifest> {
    this.baseline = await scanTree(this.root);
    this.updateMaxMtime();
    return this.baseline;
  }

  get manifest(): Manifest {
    return this.baseline;
  }

  /**
   * Gives the files a patch set changed a modification time newer than anything in the
   * workspace, so make rebuilds what depends on them. A patch set that changes anything but a
   * translation unit (a header, a Makefile) cannot rely on the build system knowing what depends
   * on it — many Makefiles list no header dependencies — so then every source-like file gets the
   * new time and everything is recompiled. Doing that in place rather than in a fresh workspace
   * costs the same compile time but no copy of the tree, which for projects carrying data files
   * is the expensive part; the rollback afterwards restores the reference objects either way.
   */
  async markChanged(relPaths: readonly string[]): Promise<number> {
    const stamp = await this.freshStamp();
    const included = await this.includedNames();
    const standalone = relPaths.every((rel) => isTranslationUnit(rel) && !included.has(basename(rel)));
    const all = standalone ? relPaths : [...new Set([...relPaths, ...this.sourceLikeFiles()])];
    await Promise.all(all.map((rel) => utimes(join(this.root, rel), stamp, stamp)));
    return stamp;
  }

  /**
   * Outputs already made from the patched sources (a screen's objects, compiled with the same
   * command), copied in with a time newer than `after`, the patched sources' stamp, so the build
   * system takes them as they are; the rollback removes them like any output.
   */
  async placeOutputs(outputs: readonly { rel: string; from: string }[], after: number): Promise<void> {
    const floor = roundUp(BigInt(Math.round(after * 1e9)) + this.granularityNs, this.granularityNs);
    const gap = floor - nowNs();
    if (gap > 0n && gap < 2_000_000_000n) await sleep(Number(gap / 1_000_000n) + 1);
    const now = roundUp(nowNs(), this.granularityNs);
    const stamp = seconds(now > floor ? now : floor);
    for (const output of outputs) {
      await copyFile(output.from, join(this.root, output.rel));
      await utimes(join(this.root, output.rel), stamp, stamp);
    }
  }

  /** Puts back every entry the last build created, deleted or wrote, with its baseline times. */
  async rollback(sourceOf: (rel: string) => string): Promise<void> {
    const current = await scanTree(this.root);
    const extra = [...current.keys()].filter((rel) => !this.baseline.has(rel));
    for (const rel of extra.sort((a, b) => a.length - b.length)) {
      await rm(join(this.root, rel), { recursive: true, force: true });
    }
    const changed: [string, Entry][] = [];
    for (const [rel, entry] of this.baseline) {
      const now = current.get(rel);
      const differs =
        now === undefined ||
        now.kind !== entry.kind ||
        (entry.kind === 'dir' ? now.mtimeNs !== entry.mtimeNs : now.ctimeNs !== entry.ctimeNs);
      if (differs || (entry.kind === 'dir' && ancestorOfAny(rel, extra))) changed.push([rel, entry]);
    }
    if (changed.length === 0) return;
    // Directories whose children were restored change time again; include every ancestor.
    const dirs = new Set(changed.map(([rel]) => rel));
    for (const [rel] of changed) {
      for (let parent = parentOf(rel); parent !== ''; parent = parentOf(parent)) {
        const entry = this.baseline.get(parent);
        if (entry && !dirs.has(parent)) {
          dirs.add(parent);
          changed.push([parent, entry]);
        }
      }
    }
    await materialize({ entries: changed, sourceOf, toRoot: this.root, linkRoots: [] });
    // The copies have new change times; the next rollback must compare against those.
    for (const [rel] of changed) {
      const entry = await statEntry(join(this.root, rel));
      if (entry) this.baseline.set(rel, entry);
    }
  }

  async remove(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }

  /**
   * Names that some source file `#include`s. A .c file included by another (unity builds, kernels
   * pulled into a driver) is not a translation unit of its own: make does not know what depends
   * on it, so a patch to it must be treated like a patch to a header.
   */
  private async includedNames(): Promise<Set<string>> {
    if (!this.included) {
      const names = new Set<string>();
      for (const rel of this.sourceLikeFiles()) {
        const text = await readFile(join(this.root, rel), 'utf8');
        for (const match of text.matchAll(/^\s*#\s*include\s*["<]([^">]+)[">]/gm)) names.add(basename(match[1]!));
      }
      this.included = names;
    }
    return this.included;
  }

  private sourceLikeFiles(): string[] {
    return [...this.baseline]
      .filter(([rel, e]) => e.kind === 'file' && SOURCE_LIKE.has(extname(rel)))
      .map(([rel]) => rel);
  }

  /**
   * A time strictly after every time in the baseline, at the file system's resolution. Waits
   * for the clock to reach it (a few milliseconds at most, normally none) so make does not
   * warn about files from the future; only a tree that already holds future times is exempt.
   */
  private async freshStamp(): Promise<number> {
    const floor = roundUp(this.maxMtimeNs + this.granularityNs, this.granularityNs);
    const gap = floor - nowNs();
    if (gap > 0n && gap < 2_000_000_000n) await sleep(Number(gap / 1_000_000n) + 1);
    const now = roundUp(nowNs(), this.granularityNs);
    return seconds(now > floor ? now : floor);
  }

  private updateMaxMtime(): void {
    let max = 0n;
    for (const entry of this.baseline.values()) if (entry.mtimeNs > max) max = entry.mtimeNs;
    this.maxMtimeNs = max;
  }
}

/**
 * The finest step of modification times the file system keeps (1 ms is as fine as we need;
 * FAT keeps 2 s, some network file systems 1 s), probed in `dir`, which must be on it.
 */
export async function timestampGranularityNs(dir: string): Promise<bigint> {
  const probe = join(dir, '.mtime-probe');
  await writeFile(probe, '');
  await utimes(probe, 1001.5, 1001.5);
  const kept = (await stat(probe, { bigint: true })).mtimeNs;
  await rm(probe, { force: true });
  if (kept >= 1_001_500_000_000n) return 1_000_000n;
  if (kept >= 1_001_000_000_000n) return 1_000_000_000n;
  return 2_000_000_000n;
}

function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

function roundUp(ns: bigint, step: bigint): bigint {
  return ((ns + step - 1n) / step) * step;
}

function parentOf(rel: string): string {
  const slash = rel.lastIndexOf('/');
  return slash < 0 ? '' : rel.slice(0, slash);
}

function ancestorOfAny(dir: string, paths: readonly string[]): boolean {
  return paths.some((p) => p.startsWith(dir + '/'));
}
