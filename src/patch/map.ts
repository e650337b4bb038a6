// Maps the file blocks of an answer onto the files of the suggestion's patch set. A block's path
// is only ever a key into the set, never opened: exact absolute path, then project-relative path,
// then a unique basename. Anything that escapes the project is refused with a reason.
import { posix } from 'node:path';
import type { PatchFile } from '../formats/types.js';
import type { FilePatch } from './model.js';
import { parsePatches } from './parse.js';

export type MapResult = { ok: true; byFileId: Map<string, FilePatch> } | { ok: false; reason: string };

export interface MapOptions {
  /** Resolves symlinks (fs.realpathSync); without it no symlink check is made. */
  realpath?: (path: string) => string;
}

export function mapToPatchSet(
  patches: FilePatch[],
  files: readonly PatchFile[],
  projectRoot: string,
  options: MapOptions = {},
): MapResult {
  const mapped = mapBlocks(patches, files, projectRoot, options);
  if (!mapped.ok) return mapped;
  const byFileId = new Map<string, FilePatch>();
  for (const [index, patch] of patches.entries()) {
    const fileId = mapped.fileIds[index]!;
    const earlier = byFileId.get(fileId);
    byFileId.set(fileId, earlier === undefined ? patch : mergeBlocks(earlier, patch));
  }
  return { ok: true, byFileId };
}

/** The file id of each block, in order; the first block that names no file of the set refuses them all. */
export function mapBlocks(
  patches: FilePatch[],
  files: readonly PatchFile[],
  projectRoot: string,
  options: MapOptions = {},
): { ok: true; fileIds: string[] } | { ok: false; reason: string } {
  const root = posix.normalize(toSlashes(projectRoot)).replace(/\/$/, '');
  const fileIds: string[] = [];
  for (const [index, patch] of patches.entries()) {
    const mapped = mapOne(patch, index + 1, files, root, options);
    if (!mapped.ok) return mapped;
    fileIds.push(mapped.file.fileId);
  }
  return { ok: true, fileIds };
}

function mapOne(
  patch: FilePatch,
  number: number,
  files: readonly PatchFile[],
  root: string,
  options: MapOptions,
): { ok: true; file: PatchFile } | { ok: false; reason: string } {
  if (patch.markedFileId !== undefined) return byMarkedId(patch.markedFileId, number, files);
  const raw = patch.oldPath ?? patch.newPath;
  const label = `block ${number}${raw === null ? '' : ` (${raw})`}`;
  const refuse = (why: string) => ({ ok: false as const, reason: `${label}: ${why}` });
  if (raw === null) {
    if (files.length === 1) return { ok: true, file: files[0]! };
    return refuse(`has no --- / +++ file header, and this suggestion changes ${files.length} files; name the file`);
  }
  const name = toSlashes(raw);
  if (name.split('/').includes('..')) return refuse('path contains `..` and would leave the project');

  let relative = name.replace(/^(\.\/)+/, '');
  if (name.startsWith('/')) {
    const absolute = posix.normalize(name);
    const exact = files.filter((file) => file.source.path === absolute || generatedHeaderPath(file) === absolute);
    if (exact.length === 1) return { ok: true, file: exact[0]! };
    if (!absolute.startsWith(`${root}/`)) return refuse(`absolute path outside the project root ${root}`);
    relative = absolute.slice(root.length + 1);
  }
  if (options.realpath !== undefined) {
    const resolved = safeRealpath(options.realpath, `${root}/${relative}`);
    const realRoot = safeRealpath(options.realpath, root) ?? root;
    if (resolved !== null && resolved !== realRoot && !resolved.startsWith(`${realRoot}/`)) {
      return refuse(`path leads out of the project through a symbolic link (to ${resolved})`);
    }
  }
  const byRelative = files.filter((file) => file.source.relPath === relative);
  if (byRelative.length === 1) return { ok: true, file: byRelative[0]! };
  const base = posix.basename(relative);
  const byBase = files.filter((file) => posix.basename(file.source.relPath) === base);
  if (byBase.length === 1) return { ok: true, file: byBase[0]! };
  const known = files.map((file) => file.source.relPath).join(', ');
  if (byBase.length > 1)
    return refuse(
      `file name ${base} matches ${byBase.length} files of the patch set (${known}); give the project-relative path`,
    );
  return refuse(`not a file of this suggestion's patch set (${known})`);
}

/** DiscoPoP's contract names the file by its id; the block's own paths are not read at all. */
function byMarkedId(
  id: string,
  number: number,
  files: readonly PatchFile[],
): { ok: true; file: PatchFile } | { ok: false; reason: string } {
  const file = files.find((candidate) => candidate.fileId === id || String(Number(candidate.fileId)) === id);
  if (file !== undefined) return { ok: true, file };
  const known = files.map((candidate) => `${candidate.fileId} (${candidate.source.relPath})`).join(', ');
  return {
    ok: false,
    reason: `block ${number} (===BEGIN PATCH ${id}===): file id ${id} is not part of this suggestion; its file ids are ${known}`,
  };
}

function toSlashes(path: string): string {
  return path.replace(/\\/g, '/');
}

function generatedHeaderPath(file: PatchFile): string | null {
  return parsePatches(file.text).patches[0]?.oldPath ?? null;
}

/** Resolves the longest existing prefix of the path, so a link is caught even when the file behind it is missing. */
function safeRealpath(realpath: (path: string) => string, path: string): string | null {
  const parts = path.split('/');
  for (let keep = parts.length; keep > 1; keep--) {
    try {
      return [toSlashes(realpath(parts.slice(0, keep).join('/'))), ...parts.slice(keep)].join('/');
    } catch {
      // This prefix does not exist; try its parent.
    }
  }
  return null;
}

/** Two blocks for one file: their hunks, in file order when every hunk says where it goes. */
export function mergeBlocks(first: FilePatch, second: FilePatch): FilePatch {
  const hunks = [...first.hunks, ...second.hunks];
  if (hunks.every((hunk) => hunk.oldStart !== null)) hunks.sort((a, b) => a.oldStart! - b.oldStart!);
  return { ...first, hunks };
}
