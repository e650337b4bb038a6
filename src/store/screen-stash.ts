// patch_repair/screened/: the objects of passed screens, kept until their confirmation builds
// ran. They live beside the run's records rather than in its scratch folder, which the next start
// removes after a kill, so that --resume confirms those suggestions without compiling their units
// again. Nothing needs them once a discovery has finished, whichever run's they were.
import { join } from 'node:path';
import { exists, removeTree } from './fs-atomic.js';
import { repairDir } from './paths.js';

export function screenStashDir(dotDir: string, runId: string): string {
  return join(repairDir(dotDir), 'screened', runId);
}

/** The taken-over screens whose kept objects are all still there; the others are screened again. */
export async function keptScreens<T extends readonly { from: string }[]>(
  screens: ReadonlyMap<string, T>,
): Promise<Map<string, T>> {
  const kept = new Map<string, T>();
  for (const [id, objects] of screens)
    if ((await Promise.all(objects.map((object) => exists(object.from)))).every(Boolean)) kept.set(id, objects);
  return kept;
}

/** After a finished discovery: every run's kept objects, this one's and a stopped one's. */
export async function removeScreenStash(dotDir: string): Promise<void> {
  // A folder left behind (the disk turned read-only) is harmless: the next finished discovery removes it.
  await removeTree(join(repairDir(dotDir), 'screened')).catch(() => undefined);
}
