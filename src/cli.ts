#!/usr/bin/env node
// Entry point: the commander declarations of options.md, then one call, and exceptions → exit
// codes. Values are validated in options/; the stages are imported lazily so that `--help` or a
// usage error costs no more than parsing.
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, Option } from 'commander';
import { asFileError, EXIT_CODES, PatchRepairError, UsageError } from './errors.js';
import {
  FLAGS,
  flagHelp,
  subcommandDotDir,
  toRunOptions,
  type Flag,
  type OptionsContext,
  type RunFlags,
} from './options/index.js';
import type { FlagKey, RunOptions } from './formats/run-options.js';

export type Invocation =
  | { command: 'run'; options: RunOptions }
  | { command: 'show'; dotDir: string; id?: string; run?: string; runs?: boolean }
  | { command: 'report'; dotDir: string; run?: string }
  /** Help or version was printed; nothing else to do. */
  | { command: 'exit'; code: number };

export interface CommandLineContext extends OptionsContext {
  /** Where help and version text go. */
  writeOut: (text: string) => void;
}

type Parsed =
  | { command: 'run'; flags: RunFlags }
  | { command: 'show'; dotDpPath?: string; id?: string; run?: string; runs?: boolean }
  | { command: 'report'; dotDpPath?: string; run?: string };

export interface CliDeps extends CommandLineContext {
  writeErr: (text: string) => void;
  loadPipeline: () => Promise<{ run(options: RunOptions): Promise<number> }>;
  loadReport: () => Promise<{
    show(o: { dotDir: string; id?: string; run?: string; runs?: boolean }): Promise<number>;
    report(o: { dotDir: string; run?: string }): Promise<number>;
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
        return await (
          await deps.loadReport()
        ).show({
          dotDir: invocation.dotDir,
          ...(invocation.id !== undefined && { id: invocation.id }),
          ...(invocation.run !== undefined && { run: invocation.run }),
          ...(invocation.runs === true && { runs: true }),
        });
      case 'report':
        return await (
          await deps.loadReport()
        ).report({ dotDir: invocation.dotDir, ...(invocation.run !== undefined && { run: invocation.run }) });
    }
  } catch (caught) {
    const error = asFileError(caught) ?? caught;
    if (error instanceof PatchRepairError) {
      for (const line of error.message.split('\n')) deps.writeErr(`patch-repair: ${line}\n`);
      return error.exitCode;
    }
    deps.writeErr(
      'patch-repair: internal error: this is a bug in patch-repair; please report it with the lines below\n' +
        `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT_CODES.internal.code;
  }
}

export async function parseCommandLine(argv: readonly string[], ctx: CommandLineContext): Promise<Invocation> {
  let parsed: Parsed | undefined;
  const program = buildProgram(ctx, (p) => {
    parsed = p;
  });
  try {
    await program.parseAsync(expandHotspotShortFlag(argv), { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.exitCode === 0) return { command: 'exit', code: 0 };
    // A repair run takes no operand, so a word left over was meant as a subcommand.
    if (error.code === 'commander.excessArguments') {
      throw new UsageError(
        `unknown command '${program.args[0]}' (commands: ${program.commands.map((c) => c.name()).join(', ')}; see --help)`,
      );
    }
    throw new UsageError(`${error.message.replace(/^error: /, '')} (see patch-repair --help)`);
  }
  if (parsed === undefined) throw new Error('commander finished without calling an action');
  if (parsed.command === 'run') return { command: 'run', options: await toRunOptions(parsed.flags, ctx) };
  const dotDir = await subcommandDotDir(parsed.dotDpPath, ctx.cwd);
  const run = parsed.run !== undefined ? { run: parsed.run } : {};
  return parsed.command === 'show'
    ? {
        command: 'show',
        dotDir,
        ...(parsed.id !== undefined && { id: parsed.id }),
        ...run,
        ...(parsed.runs === true && { runs: true }),
      }
    : { command: 'report', dotDir, ...run };
}

/**
 * DiscoPoP spells the hotspot option `-ht`: two letters after one dash, which commander (like any
 * getopt-style parser) would read as `-h -t`. Rewriting it to the long form keeps both spellings
 * identical, `-ht=X` included.
 */
export function expandHotspotShortFlag(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  return argv.map((arg, i) => {
    if (end !== -1 && i > end) return arg;
    if (arg === '-ht') return '--hotspot-types';
    if (arg.startsWith('-ht=')) return `--hotspot-types=${arg.slice('-ht='.length)}`;
    return arg;
  });
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function buildProgram(ctx: CommandLineContext, done: (parsed: Parsed) => void): Command {
  const program = new Command('patch-repair');
  const quiet = (cmd: Command) =>
    cmd.exitOverride().configureOutput({ writeOut: ctx.writeOut, writeErr: () => {}, outputError: () => {} });
  quiet(program)
    .description(
      'Find DiscoPoP suggestions whose patch does not build, repair them with a coding agent or the built-in repairer, verify, and write back only verified patch sets.',
    )
    .version(packageVersion(), '-V, --version')
    .enablePositionalOptions()
    .action((flags: RunFlags) => done({ command: 'run', flags }));
  for (const option of flagOptions()) program.addOption(option);

  quiet(program.command('show'))
    .description('redisplay a finished run from progress.jsonl')
    .argument('[id]', 'one suggestion to show in detail')
    .option('--dot-dp-path <path>', 'the .discopop folder (default: current directory)')
    .option('--run <run id>', 'an earlier run, from patch_repair/history/ (see --runs)')
    .option('--runs', 'list the recorded runs: id, start, mode, counts')
    .action((id: string | undefined, o: { dotDpPath?: string; run?: string; runs?: boolean }, cmd: Command) => {
      rejectRunOptions(program, 'show');
      if (o.runs && (id !== undefined || o.run !== undefined))
        throw new UsageError('show --runs lists the runs; it takes no suggestion id and no --run');
      done({
        command: 'show',
        dotDpPath: o.dotDpPath ?? parentDotDp(cmd),
        ...(id !== undefined && { id }),
        ...(o.run !== undefined && { run: o.run }),
        ...(o.runs === true && { runs: true }),
      });
    });
  quiet(program.command('report'))
    .description('write the HTML review page of the last run (or of --run <run id>, into its history folder)')
    .option('--dot-dp-path <path>', 'the .discopop folder (default: current directory)')
    .option('--run <run id>', 'an earlier run, from patch_repair/history/ (see show --runs)')
    .action((o: { dotDpPath?: string; run?: string }, cmd: Command) => {
      rejectRunOptions(program, 'report');
      done({
        command: 'report',
        dotDpPath: o.dotDpPath ?? parentDotDp(cmd),
        ...(o.run !== undefined && { run: o.run }),
      });
    });
  return program;
}

/**
 * Commander options from the flag table. None carries a commander default: an option left out
 * must stay undefined so that the LLM configuration can supply it (flag > connection > backend >
 * built-in), and options/ applies the defaults.
 */
function flagOptions(): Option[] {
  return (Object.entries(FLAGS) as [FlagKey, Flag | readonly Flag[]][]).flatMap(([key, entry]) =>
    (Array.isArray(entry) ? entry : [entry as Flag]).map((flag) => {
      const option = new Option(flag.flags, flagHelp(key, flag));
      if (option.attributeName() !== flag.attribute) {
        throw new Error(
          `${flag.flags}: commander stores it as ${option.attributeName()}, the flag table says ${flag.attribute}`,
        );
      }
      if (flag.shown !== undefined) option.flags = flag.shown;
      if (flag.repeatable) option.argParser(collect);
      return option;
    }),
  );
}

/** `patch-repair --dot-dp-path X show` reads as naturally as `show --dot-dp-path X`. */
function parentDotDp(cmd: Command): string | undefined {
  return (cmd.parent?.opts() as RunFlags | undefined)?.dotDpPath;
}

function rejectRunOptions(program: Command, subcommand: string): void {
  const given = program.options
    .filter((o) => o.attributeName() !== 'dotDpPath' && program.getOptionValueSource(o.attributeName()) === 'cli')
    .map((o) => o.long ?? o.flags);
  if (given.length > 0) {
    const verb = given.length === 1 ? 'belongs' : 'belong';
    throw new UsageError(`${subcommand} takes only --dot-dp-path; ${given.join(', ')} ${verb} to a repair run`);
  }
}

function packageVersion(): string {
  // Both src/ (tests) and dist/ (installed) sit one level below package.json.
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function processDeps(): CliDeps {
  return {
    cwd: process.cwd(),
    env: process.env,
    writeOut: (text) => process.stdout.write(text),
    writeErr: (text) => process.stderr.write(text),
    loadPipeline: async () => {
      const pipeline = await import('./pipeline/index.js');
      return { run: (options) => pipeline.run(options, process.stdout) };
    },
    loadReport: () => import('./report/index.js'),
  };
}

/** True when node runs this file (directly or through the npm bin symlink), not when a test imports it. */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  return script !== undefined && realpathSync(script) === fileURLToPath(import.meta.url);
}

/**
 * The terminal output is a view of the run, not the run: `patch-repair … | head -1`, a closed
 * terminal or a full disk under a redirect must not stop it before it writes results.json and
 * removes its scratch folder. A failed write destroys the stream, so every later write is dropped
 * silently; progress.jsonl still records everything.
 */
function outliveClosedOutput(stream: NodeJS.WriteStream): void {
  stream.on('error', () => {});
}

if (isEntryPoint()) {
  outliveClosedOutput(process.stdout);
  outliveClosedOutput(process.stderr);
  // exitCode instead of exit(): output still queued for a pipe is written before the process ends.
  process.exitCode = await main(process.argv.slice(2));
}
