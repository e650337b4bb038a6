// The translation unit of a patched source as the build's compiler sees it: `-E` with line
// markers, the patched text on stdin so nothing is written anywhere, `#include "…"` resolved from
// the source's own folder. The compiler and flags are those of the build's own call for that
// source when the reference build recorded one (compile.sh may add `-D`, `-I`, `-std` the
// settings do not hold), run in the folder that call ran in; otherwise `$CC`/`$CXX` with
// `$CFLAGS`/`$CXXFLAGS` from the settings, where compile.sh runs. The built-in repairer asks its
// scope and type questions of it.
import { dirname } from 'node:path';
import { describeOutcome, runProcess } from '../process.js';
import { compileOf, preprocessingFlags, type RecordedCompiles } from './compiler-record.js';
import type { DotDiscopop, SourceFile } from '../formats/types.js';

const PREPROCESS_TIMEOUT_MS = 60_000;
const CXX_SOURCE = /\.(?:cc|cpp|cxx|c\+\+|C|hpp|hh|hxx)$/;

export type Preprocessed = { ok: true; text: string } | { ok: false; reason: string };

export async function preprocessPatched(o: {
  dp: DotDiscopop;
  source: SourceFile;
  patched: string;
  recorded?: RecordedCompiles;
  signal?: AbortSignal;
}): Promise<Preprocessed> {
  const settings = o.dp.config.settings;
  const cxx = CXX_SOURCE.test(o.source.relPath);
  const recordedCompile = o.recorded?.ok ? compileOf(o.recorded.compiles, o.source.relPath) : undefined;
  // Why the settings stand in for the build's own call, when they do.
  const unrecorded = recordedCompile
    ? ''
    : `; the build's own compiler call for it is unknown: ${o.recorded?.ok === false ? o.recorded.reason : o.recorded ? 'the reference build did not compile it' : 'not recorded'}`;
  let compiler: string;
  let flags: string[];
  let cwd: string;
  if (recordedCompile) {
    compiler = recordedCompile.compiler;
    flags = preprocessingFlags(recordedCompile.args);
    cwd = recordedCompile.cwd;
  } else {
    compiler = (cxx ? settings['CXX'] : settings['CC']) ?? (cxx ? 'c++' : 'cc');
    const flagText = (cxx ? settings['CXXFLAGS'] : settings['CFLAGS']) ?? '';
    // Flags with shell quoting would need a shell to split them the way compile.sh does.
    if (/["'\\$`]/.test(flagText))
      return {
        ok: false,
        reason: `the flags '${flagText}' need a shell to read; the preprocessor was not run${unrecorded}`,
      };
    flags = flagText.split(/\s+/).filter((flag) => flag !== '');
    cwd = o.dp.config.layout === 'shared' ? o.dp.projectRoot : o.dp.config.dir;
  }
  const outcome = await runProcess({
    command: compiler,
    args: [...flags, '-E', '-x', cxx ? 'c++' : 'c', '-iquote', dirname(o.source.path), '-'],
    cwd,
    env: { ...settings, DP_PROJECT_ROOT_DIR: o.dp.projectRoot, LC_ALL: 'C' },
    input: o.patched,
    timeoutMs: PREPROCESS_TIMEOUT_MS,
    ...(o.signal && { signal: o.signal }),
  });
  if (outcome.kind === 'exited' && outcome.exitCode === 0) return { ok: true, text: outcome.stdout };
  const said =
    outcome.kind === 'exited'
      ? outcome.stderr
          .split('\n')
          .find((line) => /error/.test(line))
          ?.trim()
      : undefined;
  const how = recordedCompile ? `with the build's own flags` : 'with the settings';
  return {
    ok: false,
    reason: `'${compiler} -E' ${how} on ${o.source.relPath} failed (${said ?? describeOutcome(outcome)})${unrecorded}`,
  };
}
