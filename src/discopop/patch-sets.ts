// patch_generator/<suggestion id>/<file id>.patch (formats.md §1.5). Empty folders (types without
// code generation) and empty or whitespace-only patches (a start line the generator could not find)
// are legal: such a suggestion has nothing to build. A .patch file whose name is not a file id
// FileMapping.txt lists is left out of the set, as DiscoPoP's tools do, instead of refusing the run.
import { constants } from 'node:fs';
import { access, readdir, readFile } from 'node:fs/promises';
import { decodeBytes } from '../bytes.js';
import { join } from 'node:path';
import { compareIds, STAGING_FOLDER, type PatchFile, type SourceFile } from '../formats/types.js';
import { isNotFound, pathKind } from './path-kind.js';
import type { Problems } from './problems.js';

export interface PatchSetFolder {
  id: string;
  dir: string;
  /** Non-empty patches, ordered by numeric file id. */
  files: PatchFile[];
  /** .patch files left out of the set, by name. */
  ignoredFiles: string[];
  /** One line per ignored file: the file and why. */
  ignoredLines: string[];
}

/** With `files` null (an unusable FileMapping.txt) the patches are listed but not checked against it. */
export async function readPatchSets(o: {
  dotDir: string;
  files: ReadonlyMap<string, SourceFile> | null;
  problems: Problems;
}): Promise<PatchSetFolder[]> {
  const root = join(o.dotDir, 'patch_generator');
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (error) {
    if (!isNotFound(error)) {
      o.problems.addFileError(root, 'list', error);
      return [];
    }
    o.problems.add(
      root,
      'folder',
      'expected the patch generator output (run discopop_explorer first); the folder is missing',
    );
    return [];
  }
  // patch-repair's own staging folder (store/staging.ts) is no suggestion.
  const folders = entries
    .filter((e) => e.isDirectory() && e.name !== STAGING_FOLDER)
    .map((e) => e.name)
    .sort(compareIds);
  // Ids become folder names under patch_repair/ (backups, transcripts); say so now, not mid-run.
  for (const id of folders.filter((name) => !SUGGESTION_ID.test(name))) {
    o.problems.add(
      join(root, id),
      'folder name',
      'expected a suggestion id (letters, digits, ".", "_" or "-"), as the patch generator names them',
    );
  }
  return Promise.all(folders.map((id) => readPatchSet({ ...o, id, dir: join(root, id) })));
}

const SUGGESTION_ID = /^[A-Za-z0-9_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;

async function readPatchSet(o: {
  id: string;
  dir: string;
  files: ReadonlyMap<string, SourceFile> | null;
  problems: Problems;
}): Promise<PatchSetFolder> {
  let entries;
  try {
    entries = await readdir(o.dir, { withFileTypes: true });
  } catch (error) {
    o.problems.addFileError(o.dir, 'list', error);
    return { id: o.id, dir: o.dir, files: [], ignoredFiles: [], ignoredLines: [] };
  }
  const names = entries.filter((e) => e.isFile() && e.name.endsWith('.patch')).map((e) => e.name);
  const files: PatchFile[] = [];
  const ignored: { name: string; line: string }[] = [];
  for (const name of names) {
    const patchPath = join(o.dir, name);
    const fileId = /^(\d+)\.patch$/.exec(name)?.[1];
    if (fileId === undefined) {
      ignored.push({
        name,
        line: `${patchPath}: file name: not "<file id>.patch"; left out of suggestion ${o.id}'s patch set`,
      });
      continue;
    }
    if (o.files === null) continue;
    const source = o.files.get(fileId);
    if (source === undefined) {
      ignored.push({
        name,
        line: `${patchPath}: file id ${fileId}: not listed in FileMapping.txt; left out of suggestion ${o.id}'s patch set`,
      });
      continue;
    }
    let bytes: Buffer;
    try {
      bytes = await readFile(patchPath);
    } catch (error) {
      o.problems.addFileError(patchPath, 'read', error);
      continue;
    }
    // DiscoPoP drops a patch that is only whitespace as it drops an empty one.
    if (bytes.toString('latin1').trim() === '') continue;
    if ((await pathKind(source.path)) !== 'file') {
      o.problems.add(patchPath, `file id ${fileId}`, `expected the patched source ${source.path} to exist`);
      continue;
    }
    // Every build copies the source and every repair reads it: say now if it cannot be read.
    try {
      await access(source.path, constants.R_OK);
    } catch (error) {
      o.problems.addFileError(source.path, 'read', error);
      continue;
    }
    const text = decodeBytes(bytes);
    files.push({ fileId, patchPath, text, source });
  }
  files.sort((a, b) => compareIds(a.fileId, b.fileId));
  ignored.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    id: o.id,
    dir: o.dir,
    files,
    ignoredFiles: ignored.map((i) => i.name),
    ignoredLines: ignored.map((i) => i.line),
  };
}
