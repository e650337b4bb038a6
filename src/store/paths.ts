// Where patch-repair keeps its state inside a .discopop folder. Everything it writes lives under
// patch_repair/, except the write-back itself, which replaces files in patch_generator/<id>/.
import { join } from 'node:path';
import { patchFileName } from './patch-set-files.js';

export function repairDir(dotDir: string): string {
  return join(dotDir, 'patch_repair');
}

export function suggestionDir(dotDir: string, id: string): string {
  return join(dotDir, 'patch_generator', safeName(id, 'suggestion id'));
}

export function backupsDir(dotDir: string): string {
  return join(repairDir(dotDir), 'backups');
}

export function backupDir(dotDir: string, id: string): string {
  return join(backupsDir(dotDir), safeName(id, 'suggestion id'));
}

/**
 * What a write-back of `fileIds` leaves, named relative to the .discopop folder as results.json
 * records it: the patch files it replaced and the backup of the generated set.
 */
export function writtenPaths(id: string, fileIds: readonly string[]): { written_files: string[]; backup: string } {
  return {
    written_files: fileIds.map((fileId) => join(suggestionDir('.', id), patchFileName(safeName(fileId, 'file id')))),
    backup: backupDir('.', id),
  };
}

export function writtenDigestPath(dotDir: string, id: string): string {
  return join(backupsDir(dotDir), `${safeName(id, 'suggestion id')}.written`);
}

export function journalDir(dotDir: string): string {
  return join(repairDir(dotDir), 'journal');
}

export function journalPath(dotDir: string, id: string): string {
  return join(journalDir(dotDir), `${safeName(id, 'suggestion id')}.json`);
}

/**
 * Ids and file ids become path components; anything that could climb out of its folder (`..`,
 * a slash, an absolute path) is a bug upstream, never something to resolve.
 */
export function safeName(name: string, what: string): string {
  if (!/^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(name) || name.includes('..')) {
    throw new Error(`unsafe ${what} used as a path component: ${JSON.stringify(name)}`);
  }
  return name;
}
