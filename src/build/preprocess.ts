// The translation unit of a patched source as the build's compiler sees it: `$CC`/`$CXX` with
// `$CFLAGS`/`$CXXFLAGS` from the build settings, `-E` with line markers, the patched text on
// stdin so nothing is written anywhere, `#include "…"` resolved from the source's own folder, run
// where compile.sh runs. The built-in repairer asks its scope and type questions of it.
import { dirname } from 'node:path';
import { describeOutcome, runProcess } from '../process.js';
import type { DotDiscopop, SourceFile } from '../formats/types.js';

const PREPROCESS_TIMEOUT_MS = 60_000;
const CXX_SOURCE = /\.(?:cc|cpp|cxx|c\+\+|C|hpp|hh|hxx)$/;

export type Preprocessed = { ok: true; text: string } | { ok: false; reason: string };

export async function preprocessPatched(o: { dp: DotDiscopop; source: SourceFile; patched: string; signal?: AbortSignal }): Promise<Preprocessed> {
  const settings = o.dp.config.settings;
  const cxx = CXX_SOURCE.test(o.source.relPath);
  const compiler = (cxx ? settings['CXX'] : settings['CC']) ?? (cxx ? 'c++' : 'cc');
  const flagText = (cxx ? settings['CXXFLAGS'] : settings['CFLAGS']) ?? '';
  // Flags with shell quoting would need a shell to split them the way compile.sh does.
  if (/["'\\$`]/.test(flagText)) return { ok: false, reason: `the flags '${flagText}' need a shell to read; the preprocessor was not run` };
  const outcome = await runProcess({
    command: compiler,
    args: [...flagText.split(/\s+/).filter((flag) => flag !== ''), '-E', '-x', cxx ? 'c++' : 'c', '-iquote', dirname(o.source.path), '-'],
    cwd: o.dp.config.layout === 'shared' ? o.dp.projectRoot : o.dp.config.dir,
    env: { ...settings, DP_PROJECT_ROOT_DIR: o.dp.projectRoot, LC_ALL: 'C' },
    input: o.patched,
    timeoutMs: PREPROCESS_TIMEOUT_MS,
    ...(o.signal && { signal: o.signal }),
  });
  if (outcome.kind === 'exited' && outcome.exitCode === 0) return { ok: true, text: outcome.stdout };
  const said = outcome.kind === 'exited' ? outcome.stderr.split('\n').find((line) => /error/.test(line))?.trim() : undefined;
  return { ok: false, reason: `'${compiler} -E' on ${o.source.relPath} failed (${said ?? describeOutcome(outcome)})` };
}
