import type { DotDiscopop } from '../src/formats/types.js';

/** The generated scale project (scale-project.mjs): `tus` units, `suggestions` suggestions, `broken` the ids generated broken. */
export function generateProject(
  base: string,
  tus: number,
  suggestions: number,
  fillers: number,
): Promise<{ root: string; dp: DotDiscopop; pathDependent: DotDiscopop; broken: Set<string> }>;
