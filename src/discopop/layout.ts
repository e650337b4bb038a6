// The quick check behind `--dot-dp-path`: is this folder a .discopop at all? Run from the project
// root instead of inside .discopop is the usual mistake, so that case gets its own hint.
import { join } from 'node:path';
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
  const hint =
    (await pathKind(join(dir, '.discopop'))) === 'directory'
      ? `; did you mean --dot-dp-path ${join(dir, '.discopop')}?`
      : '; run inside .discopop or pass --dot-dp-path';
  return `${dir}: --dot-dp-path: expected a .discopop folder with FileMapping.txt and patch_generator/; ${missing} missing${hint}`;
}
