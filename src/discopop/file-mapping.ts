// FileMapping.txt: `<id>\t<absolute real path>` per line (formats.md §1.2). The paths are those of
// the machine and folder where DiscoPoP instrumented the code; a project copied or moved since still
// has the same relative layout, so the recorded root is found again and the files relocated.
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { SourceFile } from '../formats/types.js';
import { isNotFound, pathKind } from './path-kind.js';
import type { Problems } from './problems.js';

interface Entry {
  id: string;
  path: string;
  line: number;
}

export interface FileMapping {
  /** Null when the mapping is missing or its files cannot be placed; the problems say why. */
  files: Map<string, SourceFile> | null;
  /** Set when the recorded root differs from the current one. */
  relocatedFrom?: string;
}

export async function readFileMapping(o: {
  dotDir: string;
  projectRoot: string;
  /** The root came from --project-root, not from where .discopop sits. */
  rootGiven?: boolean;
  problems: Problems;
}): Promise<FileMapping> {
  const file = join(o.dotDir, 'FileMapping.txt');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (!isNotFound(error)) {
      o.problems.addFileError(file, 'read', error);
      return { files: null };
    }
    o.problems.add(
      file,
      'whole file',
      'expected the file mapping DiscoPoP writes while instrumenting; the file is missing',
    );
    return { files: null };
  }
  const { entries, unreadable } = parseEntries(text, file, o.problems);
  // Patches naming the id of an unreadable line would each report it missing again: one error is enough.
  if (unreadable) return { files: null };
  if (entries.length === 0) {
    // Stray patch files are skipped one by one; with nothing listed every patch would be stray and
    // the run would end "no patch" everywhere with exit 0. A mapping that lists no file is broken.
    o.problems.add(
      file,
      'whole file',
      'lists no source file; expected "<file id><TAB><absolute path>" lines, as DiscoPoP writes them while instrumenting',
    );
    return { files: null };
  }

  const recordedRoot = await findRecordedRoot(entries, o.projectRoot);
  if (recordedRoot === undefined) {
    await reportUnplaced({
      entries,
      projectRoot: o.projectRoot,
      rootGiven: o.rootGiven === true,
      file,
      problems: o.problems,
    });
    return { files: null };
  }
  const files = new Map<string, SourceFile>();
  for (const entry of entries) {
    const relPath = relative(recordedRoot, entry.path).split(sep).join('/');
    files.set(entry.id, { id: entry.id, path: join(o.projectRoot, relPath), relPath });
  }
  return recordedRoot === o.projectRoot ? { files } : { files, relocatedFrom: recordedRoot };
}

function parseEntries(text: string, file: string, problems: Problems): { entries: Entry[]; unreadable: boolean } {
  const entries: Entry[] = [];
  let unreadable = false;
  const firstLineOfId = new Map<string, number>();
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const content = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (content.trim() === '') return;
    const match = /^(\d+)\t(.+)$/.exec(content);
    if (!match) {
      problems.add(file, `line ${line}`, 'expected "<file id><TAB><absolute path>"');
      unreadable = true;
      return;
    }
    const [, id, path] = match as unknown as [string, string, string];
    if (!isAbsolute(path)) {
      problems.add(file, `line ${line}`, `expected an absolute path, got "${path}"`);
      unreadable = true;
      return;
    }
    const first = firstLineOfId.get(id);
    if (first !== undefined) {
      problems.add(file, `line ${line}`, `expected each file id once; id ${id} is already on line ${first}`);
      return;
    }
    firstLineOfId.set(id, line);
    entries.push({ id, path, line });
  });
  return { entries, unreadable };
}

/**
 * The root the paths were recorded under: the current root when every path lies inside it,
 * otherwise the longest common ancestor of the recorded paths under which every relative path
 * also exists in the current root. Undefined when neither holds.
 */
async function findRecordedRoot(entries: Entry[], projectRoot: string): Promise<string | undefined> {
  if (entries.every((e) => isInside(projectRoot, e.path))) return projectRoot;
  for (const candidate of commonAncestors(entries.map((e) => e.path))) {
    const found = await Promise.all(
      entries.map(async (e) => (await pathKind(join(projectRoot, relative(candidate, e.path)))) === 'file'),
    );
    if (found.every(Boolean)) return candidate;
  }
  return undefined;
}

/** Names the entries that keep the project from being found: outside it, and absent from it. */
async function reportUnplaced(o: {
  entries: Entry[];
  projectRoot: string;
  rootGiven: boolean;
  file: string;
  problems: Problems;
}) {
  const whose = o.rootGiven
    ? 'given by --project-root'
    : 'the parent of the .discopop folder; give --project-root when the project is elsewhere';
  const deepest = commonAncestors(o.entries.map((e) => e.path))[0] ?? '/';
  for (const entry of o.entries) {
    const rel = relative(deepest, entry.path);
    if (isInside(o.projectRoot, entry.path) || (await pathKind(join(o.projectRoot, rel))) === 'file') continue;
    o.problems.add(
      o.file,
      `line ${entry.line}`,
      `expected a path inside the project root ${o.projectRoot} (${whose}); ` +
        `${entry.path} is outside it, and ${rel.split(sep).join('/')} does not exist under it either`,
    );
  }
}

/** Directories that contain every path, deepest first. */
function commonAncestors(paths: string[]): string[] {
  const [first, ...rest] = paths as [string, ...string[]];
  const ancestors: string[] = [];
  let dir = dirname(first);
  for (;;) {
    if (rest.every((p) => isInside(dir, p))) ancestors.push(dir);
    const parent = dirname(dir);
    if (parent === dir) return ancestors;
    dir = parent;
  }
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
