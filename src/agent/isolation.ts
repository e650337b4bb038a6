// What llm_config.json may add to an agent call without undoing the isolation its descriptor sets
// up (agents.md: no tools, no permissions, an empty directory, a fresh conversation). The refused
// names are the descriptor's (`isolation`), so a new backend brings its own list.
import type { Descriptor } from '../formats/descriptor.js';
import { fillArgs } from './template.js';

export type BackendOptionValue = string | boolean;

/** What a connection and its backend section add to every call, resolved. */
export interface CallAdditions {
  backendOptions: Readonly<Record<string, BackendOptionValue>>;
  extraArgs: readonly string[];
  env: Readonly<Record<string, string>>;
}

/** Where a refused setting was written, for the message: a key path in llm_config.json. */
export interface Places {
  option(name: string): string;
  arg(arg: string): string;
  env(name: string): string;
}

const REFUSAL =
  'refused: it would give the agent tools, permissions, the project or another conversation, which patch-repair never does';

/** DiscoPoP's GUI writes every option with its empty default: "" and false mean unset. */
export function isSet(value: BackendOptionValue | undefined): value is BackendOptionValue {
  return value !== undefined && value !== '' && value !== false;
}

export function isolationProblems(descriptor: Descriptor, additions: CallAdditions, places: Places): string[] {
  const refused = descriptor.isolation;
  const problems: string[] = [];
  for (const [name, value] of Object.entries(additions.backendOptions)) {
    if (isSet(value) && refused.options.includes(name)) problems.push(`${places.option(name)}: ${REFUSAL}`);
  }
  for (const arg of additions.extraArgs) {
    if (flagsIn(arg, refused.valueFlags).some((flag) => refused.args.includes(flag)))
      problems.push(`${places.arg(arg)}: '${arg}' ${REFUSAL}`);
  }
  for (const name of Object.keys(additions.env)) {
    if (refused.env.includes(name) || name in descriptor.env) problems.push(`${places.env(name)}: ${REFUSAL}`);
  }
  return problems;
}

/**
 * Every flag a CLI's parser reads from one argument: `--flag=value` is `--flag`, and a short
 * argument is its letters up to the first flag that takes a value, since `-ic` groups -i and -c
 * while `-mopenai/gpt-5` is -m and its value and `-rID` is -r and its value.
 */
function flagsIn(arg: string, valueFlags: readonly string[]): string[] {
  if (arg.startsWith('--')) return [arg.split('=')[0]!];
  if (!arg.startsWith('-')) return [];
  const flags: string[] = [];
  for (const letter of arg.slice(1)) {
    flags.push(`-${letter}`);
    if (valueFlags.includes(`-${letter}`)) break;
  }
  return flags;
}

/** The arguments of the options the descriptor declares, in its order; the others are ignored. */
export function optionArgs(descriptor: Descriptor, options: Readonly<Record<string, BackendOptionValue>>): string[] {
  return Object.entries(descriptor.options).flatMap(([name, args]) => {
    const value = options[name];
    if (!isSet(value)) return [];
    return fillArgs(args, { value: value === true ? 'true' : String(value) });
  });
}
