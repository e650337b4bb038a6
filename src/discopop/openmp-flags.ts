// Without an OpenMP flag the compiler ignores `#pragma omp` lines, so a broken directive builds
// fine and discovery would report every suggestion as working.
import type { BuildConfig } from '../formats/types.js';

// `-fopenmp=libomp` counts; `-fopenmp-simd` does not enable `parallel for` and does not.
const OPENMP_FLAG = /(?:^|[\s"'=(])-(?:fopenmp|qopenmp|fiopenmp|openmp)(?![\w-])/;

export function hasOpenmpFlag(text: string): boolean {
  return OPENMP_FLAG.test(text);
}

export function missingOpenmpNotice(config: BuildConfig, compileScriptText: string): string | null {
  if (Object.values(config.settings).some(hasOpenmpFlag) || hasOpenmpFlag(compileScriptText)) return null;
  return (
    `neither ${config.settingsSource} nor compile.sh of configuration ${config.name} shows an OpenMP flag ` +
    `(-fopenmp, -qopenmp, -fiopenmp, -openmp): if the build does not enable OpenMP, directive errors cannot show ` +
    `and broken suggestions will seem to build`
  );
}
