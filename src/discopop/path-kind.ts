import { stat } from 'node:fs/promises';

export type PathKind = 'file' | 'directory' | 'other' | 'missing';

/** What is at `path`, following symlinks; a broken link or missing parent is `missing`. */
export async function pathKind(path: string): Promise<PathKind> {
  try {
    const info = await stat(path);
    return info.isFile() ? 'file' : info.isDirectory() ? 'directory' : 'other';
  } catch (error) {
    if (isNotFound(error)) return 'missing';
    throw error;
  }
}

export function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
