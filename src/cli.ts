#!/usr/bin/env node
// Entry point: command line → one call, and exceptions → exit codes (options.md). The stages are
// imported lazily so that `--help` or a usage error costs no more than parsing.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PatchRepairError } from './errors.js';
import { parseCommandLine } from './options.js';
import type { RunOptions } from './run-options.js';

export interface CliDeps {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  writeOut: (text: string) => void;
  writeErr: (text: string) => void;
  loadPipeline: () => Promise<{ run(options: RunOptions): Promise<number> }>;
  loadReport: () => Promise<{
    show(o: { dotDir: string; id?: string }): Promise<number>;
    report(o: { dotDir: string }): Promise<number>;
  }>;
}

export async function main(argv: readonly string[], deps: CliDeps = processDeps()): Promise<number> {
  try {
    const invocation = await parseCommandLine(argv, deps);
    switch (invocation.command) {
      case 'exit':
        return invocation.code;
      case 'run':
        return await (await deps.loadPipeline()).run(invocation.options);
      case 'show':
        return await (await deps.loadReport()).show({
          dotDir: invocation.dotDir,
          ...(invocation.id !== undefined && { id: invocation.id }),
        });
      case 'report':
        return await (await deps.loadReport()).report({ dotDir: invocation.dotDir });
    }
  } catch (error) {
    if (error instanceof PatchRepairError) {
      for (const line of error.message.split('\n')) deps.writeErr(`patch-repair: ${line}\n`);
      return error.exitCode;
    }
    deps.writeErr(
      'patch-repair: internal error: this is a bug in patch-repair; please report it with the lines below\n' +
        `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}

function processDeps(): CliDeps {
  return {
    cwd: process.cwd(),
    env: process.env,
    writeOut: (text) => process.stdout.write(text),
    writeErr: (text) => process.stderr.write(text),
    loadPipeline: () => import('./pipeline.js'),
    loadReport: () => import('./report/index.js'),
  };
}

/** True when node runs this file (directly or through the npm bin symlink), not when a test imports it. */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  return script !== undefined && realpathSync(script) === fileURLToPath(import.meta.url);
}

if (isEntryPoint()) {
  // exitCode instead of exit(): output still queued for a pipe is written before the process ends.
  process.exitCode = await main(process.argv.slice(2));
}
