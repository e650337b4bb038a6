// The quick check behind `--dot-dp-path`: is this folder a .discopop at all? Run from the project
// root, or from a folder inside .discopop (patch_generator/, explorer/), instead of .discopop
// itself is the usual mistake, so those cases name the folder the user meant.
import { dirname, join } from 'node:path';
import { pathKind } from './path-kind.js';

/** A one-line problem, or null when `dir` looks like a .discopop folder. */
export async function checkDotDiscopopFolder(dir: string): Promise<string | null> {
  const kind = await pathKind(dir);
  if (kind === 'missing') return `${dir}: --dot-dp-path: expected a .discopop folder; it does not exist`;
  if (kind !== 'directory') return `${dir}: --dot-dp-path: expected a .discopop folder; it is not a directory`;
  const [mapping, generator] = await Promise.all([
    pathKind(join(dir, 'FileMapping.txt')),
    pathKind(join(dir, 'patch_generator')),
  ]);
  if (mapping === 'file' && generator === 'directory') return null;
  const missing = [mapping !== 'file' && 'FileMapping.txt', generator !== 'directory' && 'patch_generator/']
    .filter(Boolean)
    .join(' and ');
  return `${dir}: --dot-dp-path: expected a .discopop folder with FileMapping.txt and patch_generator/; ${missing} missing; ${await whereToRun(dir)}`;
}

/**
 * What to do instead, for a folder that is not a .discopop: the .discopop inside it (the project
 * root) or above it (a folder of .discopop), else the general advice.
 */
export async function whereToRun(dir: string): Promise<string> {
  const inside = join(dir, '.discopop');
  if ((await pathKind(inside)) === 'directory') return `did you mean --dot-dp-path ${inside}?`;
  const above = await enclosingDotDiscopop(dir);
  if (above !== null)
    return `this folder is inside the .discopop folder ${above}: run there or pass --dot-dp-path ${above}`;
  return 'run inside .discopop or pass --dot-dp-path';
}

async function enclosingDotDiscopop(dir: string): Promise<string | null> {
  for (let parent = dirname(dir); parent !== dirname(parent); parent = dirname(parent)) {
    if (await isDotDiscopop(parent)) return parent;
  }
  return null;
}

async function isDotDiscopop(dir: string): Promise<boolean> {
  const [mapping, generator] = await Promise.all([
    pathKind(join(dir, 'FileMapping.txt')),
    pathKind(join(dir, 'patch_generator')),
  ]);
  return mapping === 'file' && generator === 'directory';
}
