// Where the build pool's workspaces come from and how they get their reference state. Workspace 0
// is a copy of the user's tree; what its reference build produced is kept aside. When those
// outputs do not name the folder they were built in, a further workspace is the user's tree plus
// those outputs, so it starts with objects; when they do (CMake, autotools, Meson), copies of them
// would be wrong elsewhere, so each further workspace runs its own reference build.
import { mkdir, realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Emit } from '../formats/events.js';
import type { BuildResult, DotDiscopop } from '../formats/types.js';
import { dotDiscopopOutside, OUTSIDE_DOT_DISCOPOP } from './compile.js';
import {
  treeLeftOut,
  filesHoldingPath,
  foldersConfiguredAt,
  saysConfiguredElsewhere,
  type ConfiguredFolder,
} from './location.js';
import {
  absolutizeEscapingLinks,
  materialize,
  scanTree,
  statEntry,
  type Entry,
  type Manifest,
  type SourceOf,
} from './tree.js';
import {
  projectSourceOf,
  referenceSourceOf,
  timestampGranularityNs,
  Workspace,
  type ReferenceSources,
} from './workspace.js';

/** How the workspaces got their reference state; results.json records it. */
export interface WorkspacePlacement {
  /** The reference build wrote its workspace's absolute path into these outputs (relative paths, sorted). */
  pathFiles: string[];
  /** 'copied': further workspaces start from copies of workspace 0's outputs; 'rebuilt': each runs its own reference build. */
  outputs: 'copied' | 'rebuilt';
  /** Reference builds run so far, the first one included. */
  referenceBuilds: number;
  /** Workspaces made so far. */
  workspaces: number;
}

export interface PlacedWorkspace {
  workspace: Workspace;
  /** Where its rollbacks read the reference bytes. */
  sources: ReferenceSources;
}

export class Workspaces {
  private placement?: WorkspacePlacement;
  private configured: ConfiguredFolder[] = [];

  private constructor(
    /** The pool's own folder; each workspace is a folder below it. */
    private readonly root: string,
    private readonly projectRoot: string,
    /** The .discopop folder when it is outside the project root: its copy is `.discopop` in a workspace. */
    private readonly outsideDotDir: string | undefined,
    /** The user's tree as it is copied into a workspace, before any build. */
    private readonly initial: Manifest,
    private readonly granularityNs: bigint,
    private readonly dp: DotDiscopop,
    private readonly emit: Emit,
  ) {}

  /** Reads the user's tree, without .discopop/patch_repair/, the scratch folder and what `exclude` matches. */
  static async scan(o: {
    dp: DotDiscopop;
    scratchDir: string;
    root: string;
    exclude: readonly string[];
    emit: Emit;
  }): Promise<Workspaces> {
    const { dp } = o;
    const granularityNs = await timestampGranularityNs(o.root);
    const { projectRoot, dotDir, skipped, unmatched } = await treeLeftOut(dp, o.exclude);
    for (const glob of unmatched) {
      o.emit({ type: 'notice', level: 'warning', message: `--exclude ${glob}: matches nothing in ${projectRoot}` });
    }
    skipped.add(await realpath(o.scratchDir).catch(() => o.scratchDir));
    skipped.add(o.root);
    const outside = dotDiscopopOutside({ projectRoot, dotDir });
    // The copy of an outside .discopop takes the name `.discopop`; one the project holds is another analysis.
    if (outside) skipped.add(join(projectRoot, OUTSIDE_DOT_DISCOPOP));
    const manifest = await scanTree(projectRoot, (abs) => skipped.has(abs));
    absolutizeEscapingLinks(manifest, projectRoot);
    if (outside) {
      const dot = await scanTree(dotDir, (abs) => skipped.has(abs));
      absolutizeEscapingLinks(dot, dotDir);
      manifest.set(OUTSIDE_DOT_DISCOPOP, (await statEntry(dotDir))!);
      for (const [rel, entry] of dot) manifest.set(`${OUTSIDE_DOT_DISCOPOP}/${rel}`, entry);
    }
    return new Workspaces(o.root, projectRoot, outside ? dotDir : undefined, manifest, granularityNs, dp, o.emit);
  }

  /** Undefined until the first reference build passed. */
  placementWith(workspaces: number): WorkspacePlacement | undefined {
    return this.placement && { ...this.placement, pathFiles: [...this.placement.pathFiles], workspaces };
  }

  get foldersConfiguredInProject(): readonly ConfiguredFolder[] {
    return this.configured;
  }

  /** A workspace in `folder` holding the user's tree as it is, without the reference build's outputs. */
  async userTree(folder: string): Promise<Workspace> {
    const tree = join(this.root, folder, 'tree');
    await mkdir(tree, { recursive: true });
    await materialize({
      entries: [...this.initial].map(([rel, e]) => [rel, { ...e }] as [string, Entry]),
      sourceOf: this.projectSource(),
      toRoot: tree,
      linkRoots: [this.projectRoot, this.dp.projectRoot],
    });
    return new Workspace(tree, await scanTree(tree), this.granularityNs);
  }

  /** Where a workspace entry comes from in the user's tree. */
  projectSource(): SourceOf {
    return projectSourceOf({ projectRoot: this.projectRoot, outsideDotDir: this.outsideDotDir });
  }

  /** A workspace that has not built yet rolls back to the user's tree. */
  userTreeSources(): ReferenceSources {
    return {
      projectRoot: this.projectRoot,
      outsideDotDir: this.outsideDotDir,
      outputsRoot: this.projectRoot,
      outputs: new Set(),
    };
  }

  /**
   * After the reference build in workspace 0: keeps its outputs aside, decides how further
   * workspaces are placed and, when it failed or said a build folder was configured elsewhere,
   * finds the build folders of the user's tree configured at the project's own path.
   */
  async settleFirst(workspace: Workspace, result: BuildResult): Promise<ReferenceSources> {
    const sources = await this.keepReferenceOutputs(workspace, 0);
    if (result.ok) {
      const pathFiles = await filesHoldingPath(
        workspace.root,
        [...sources.outputs],
        await rootSpellings(workspace.root),
      );
      this.placement = {
        pathFiles,
        outputs: pathFiles.length > 0 ? 'rebuilt' : 'copied',
        referenceBuilds: 1,
        workspaces: 1,
      };
      if (pathFiles.length > 0) {
        const more = pathFiles.length > 1 ? ` and ${pathFiles.length - 1} more` : '';
        this.emit({
          type: 'notice',
          level: 'info',
          message: `the reference build wrote the absolute path of the folder it ran in into ${pathFiles[0]}${more}: copies of its outputs would be wrong in another folder, so every further workspace runs its own reference build`,
        });
      }
    }
    if (!result.ok || saysConfiguredElsewhere(result.output)) {
      this.configured = await foldersConfiguredAt(workspace.root, this.initial, [
        this.projectRoot,
        this.dp.projectRoot,
      ]);
    }
    return sources;
  }

  /** Workspace `index` beyond the first, placed as the first reference build decided. */
  async further(
    index: number,
    first: PlacedWorkspace,
    referenceBuild: (workspace: Workspace) => Promise<BuildResult>,
  ): Promise<PlacedWorkspace> {
    if (this.placement?.outputs === 'rebuilt') return this.rebuilt(index, referenceBuild);
    return { workspace: await this.copied(index, first), sources: first.sources };
  }

  /** The user's tree plus workspace 0's reference outputs, with the baseline's times. */
  private async copied(index: number, first: PlacedWorkspace): Promise<Workspace> {
    const tree = join(this.root, `w${index}`, 'tree');
    await mkdir(tree, { recursive: true });
    const entries: [string, Entry][] = [...first.workspace.manifest].map(([rel, e]) => [rel, { ...e }]);
    await materialize({
      entries,
      sourceOf: referenceSourceOf(first.sources),
      toRoot: tree,
      linkRoots: [first.workspace.root],
    });
    return new Workspace(tree, await scanTree(tree), this.granularityNs);
  }

  /** The user's tree and a reference build of its own, for outputs that name their folder. */
  private async rebuilt(
    index: number,
    referenceBuild: (workspace: Workspace) => Promise<BuildResult>,
  ): Promise<PlacedWorkspace> {
    const workspace = await this.userTree(`w${index}`);
    (this.placement as WorkspacePlacement).referenceBuilds++;
    const result = await referenceBuild(workspace);
    const sources = await this.keepReferenceOutputs(workspace, index);
    if (!result.ok) {
      await rm(join(this.root, `w${index}`), { recursive: true, force: true });
      throw new Error(
        `the reference build passed in the first workspace but fails in workspace ${index}, which is left unused: ${result.firstError ?? 'no error message'}`,
      );
    }
    return { workspace, sources };
  }

  /** Copies aside what the reference build created or rewrote: rollbacks (and copied workspaces) read it. */
  private async keepReferenceOutputs(workspace: Workspace, index: number): Promise<ReferenceSources> {
    const before = workspace.manifest;
    const after = await workspace.captureBaseline();
    const written = [...after].filter(([rel, e]) => e.kind === 'file' && before.get(rel)?.ctimeNs !== e.ctimeNs);
    const outputsRoot = join(this.root, index === 0 ? 'reference-outputs' : `reference-outputs-w${index}`);
    await mkdir(outputsRoot, { recursive: true });
    await materialize({
      entries: written,
      sourceOf: (rel) => join(workspace.root, rel),
      toRoot: outputsRoot,
      linkRoots: [],
    });
    return {
      projectRoot: this.projectRoot,
      outsideDotDir: this.outsideDotDir,
      outputsRoot,
      outputs: new Set(written.map(([rel]) => rel)),
    };
  }
}

/** The workspace path as a build may print it: as made, and resolved (getcwd() returns the latter). */
export async function rootSpellings(root: string): Promise<string[]> {
  return [...new Set([root, await realpath(root)])];
}
