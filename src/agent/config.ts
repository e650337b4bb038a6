// llm_config.json and the resolution of agent settings (options.md): command-line flag, then the
// chosen connection (its `backend_options` first), then that backend's entry in `backends` (its
// `options` first), then the backend descriptor's defaults, then the built-in defaults. The file is
// read as patch-repair and as DiscoPoP's own patch repair and GUI write it (llm_config.py there).
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import {
  BACKEND_OPTION_NAMES,
  LlmConfigSchema,
  type LlmConfig,
  type SharedLlmSettings as Shared,
} from '../formats/llm-config.js';
import type { Descriptor } from '../formats/descriptor.js';
import { fileProblem, UsageError } from '../errors.js';
import { AGENT_DEFAULTS, type AgentSettings } from '../formats/run-options.js';
import { isDescriptorPath, loadDescriptor } from './descriptor.js';
import { keyPath, zodProblems } from '../formats/zod-problems.js';
import { isolationProblems, isSet, type BackendOptionValue, type CallAdditions } from './isolation.js';

export type AgentFlags = Partial<Omit<AgentSettings, 'executable' | 'backendOptions' | 'extraArgs' | 'env'>>;

/** Replace the executable of claude and opencode only, as in DiscoPoP. */
const EXECUTABLE_ENV: Readonly<Record<string, string>> = { claude: 'DISCOPOP_CLAUDE', opencode: 'DISCOPOP_OPENCODE' };

// Exact key names: `max_tokens` or `token_budget` are settings, not secrets.
const CREDENTIAL_KEYS = new Set(['api_key', 'apiKey', 'auth_token', 'token', 'password', 'secret']);

function credentialKeyPath(value: unknown, path: string[] = []): string[] | null {
  if (value === null || typeof value !== 'object') return null;
  for (const [key, child] of Object.entries(value)) {
    if (CREDENTIAL_KEYS.has(key)) return [...path, key];
    const found = credentialKeyPath(child, [...path, key]);
    if (found) return found;
  }
  return null;
}

/** Reads and validates llm_config.json; null when it does not exist and was not asked for. */
export async function readLlmConfig(file: string, explicit: boolean): Promise<LlmConfig | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !explicit) return null;
    throw new UsageError(fileProblem(file, 'read the LLM configuration', error));
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not valid JSON: ${(error as Error).message}`);
  }
  const problems: string[] = [];
  const credential = credentialKeyPath(raw);
  if (credential) {
    problems.push(
      `${file}: ${keyPath(credential)}: credentials do not belong here; the agent CLI owns authentication (log in with it, or set its own environment variables), so remove this key`,
    );
  }
  const parsed = LlmConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const credentialLine = credential ? `${file}: ${keyPath(credential)}:` : null;
    problems.push(
      ...zodProblems(file, parsed.error).filter((line) => credentialLine === null || !line.startsWith(credentialLine)),
    );
  }
  if (problems.length > 0 || !parsed.success) throw new UsageError(problems.join('\n'));
  return parsed.data;
}

function chooseConnection(config: LlmConfig | null, flags: AgentFlags, file: string): string | undefined {
  const names = Object.keys(config?.connections ?? {});
  if (flags.connection !== undefined) {
    if (!names.includes(flags.connection)) {
      const known = names.length > 0 ? `defined: ${names.join(', ')}` : 'it defines none';
      throw new UsageError(`--connection ${flags.connection}: no such connection in ${file} (${known})`);
    }
    return flags.connection;
  }
  if (names.length === 1) return names[0];
  // An explicit --backend needs no connection; otherwise the choice must not be a guess.
  if (names.length > 1 && flags.backend === undefined) {
    throw new UsageError(
      `${file}: several connections are defined (${names.join(', ')}); choose one with --connection`,
    );
  }
  return undefined;
}

/** Flags → connection → backend entry → descriptor defaults → built-in defaults. */
export async function resolveAgentSettings(input: {
  flags: AgentFlags;
  llmConfigPath: string;
  llmConfigExplicit: boolean;
  /** Where a relative --backend path is resolved: the shell's working directory. */
  cwd?: string;
  /** Where DISCOPOP_CLAUDE and DISCOPOP_OPENCODE are read. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Gets what is read but questionable in the file, said at the run's start. */
  warn?: (message: string) => void;
}): Promise<AgentSettings> {
  const { flags, llmConfigPath: file } = input;
  const config = await readLlmConfig(file, input.llmConfigExplicit);
  const connectionName = chooseConnection(config, flags, file);
  const connection = connectionName !== undefined ? config!.connections[connectionName]! : undefined;
  // A descriptor path is relative to where it was written: the shell's cwd for --backend, the
  // configuration's folder for a connection. Made absolute here so createAgent finds it too.
  const named = flags.backend ?? connection?.backend;
  const base = flags.backend !== undefined ? (input.cwd ?? process.cwd()) : dirname(file);
  const backend = named !== undefined && isDescriptorPath(named) ? resolve(base, named) : named;
  const entry = named !== undefined ? config?.backends[named] : undefined;
  // A backend named by the connection is blamed on its key in the file, not on a flag never given.
  const namedBy =
    flags.backend === undefined && connectionName !== undefined
      ? `${file}: connections.${connectionName}.backend`
      : undefined;
  const descriptor =
    backend !== undefined && backend !== 'builtin' ? await loadDescriptor(backend, process.cwd(), namedBy) : undefined;
  const descriptorDefaults = descriptor?.defaults ?? {};

  const layers: Shared[] = [connection ?? {}, entry ?? {}];
  const pick = <K extends keyof Shared>(key: K): Shared[K] => layers.find((l) => l[key] !== undefined)?.[key];

  const settings: AgentSettings = {
    agentTimeoutS:
      flags.agentTimeoutS ??
      connectionTimeout(connection, `${file}: connections.${connectionName}`, input.warn) ??
      entry?.agent_timeout ??
      descriptorDefaults.agent_timeout ??
      AGENT_DEFAULTS.agentTimeoutS,
    prompts: flags.prompts ?? pick('prompts') ?? AGENT_DEFAULTS.prompts,
    retries: flags.retries ?? pick('retries') ?? AGENT_DEFAULTS.retries,
    maxAttempts: flags.maxAttempts ?? pick('max_attempts') ?? AGENT_DEFAULTS.maxAttempts,
    agentErrorRetries: flags.agentErrorRetries ?? pick('agent_error_retries') ?? AGENT_DEFAULTS.agentErrorRetries,
  };
  const model = flags.model ?? pick('model') ?? descriptorDefaults.model;
  const maxCost = flags.maxCostUsd ?? pick('max_cost');
  if (connectionName !== undefined) settings.connection = connectionName;
  if (backend !== undefined) settings.backend = backend;
  if (model !== undefined) settings.model = model;
  if (maxCost !== undefined) settings.maxCostUsd = maxCost;
  const executable = executableOf(file, named, entry, input.env ?? process.env);
  if (executable !== undefined) settings.executable = executable;

  const additions = callAdditions(connection, entry);
  if (descriptor !== undefined) {
    const problems = isolationProblems(descriptor, additions, placesIn(file, connectionName, named, connection, entry));
    if (problems.length > 0) throw new UsageError(problems.join('\n'));
  }
  if (Object.keys(additions.backendOptions).length > 0) settings.backendOptions = { ...additions.backendOptions };
  if (additions.extraArgs.length > 0) settings.extraArgs = [...additions.extraArgs];
  if (Object.keys(additions.env).length > 0) settings.env = { ...additions.env };
  return settings;
}

type Connection = LlmConfig['connections'][string];
type BackendEntry = LlmConfig['backends'][string];

/** The connection's agent_timeout, else DiscoPoP's `timeout` (0 and null unset it there). */
function connectionTimeout(
  connection: Connection | undefined,
  place: string,
  warn: ((message: string) => void) | undefined,
): number | undefined {
  const discopop = connection?.timeout || undefined;
  const ours = connection?.agent_timeout;
  if (ours !== undefined && discopop !== undefined && ours !== discopop) {
    warn?.(
      `${place}: agent_timeout ${ours} s and DiscoPoP's timeout ${discopop} s are both set; agent_timeout is used`,
    );
  }
  return ours ?? discopop;
}

/** `executable` or DiscoPoP's `binary` (both given, they must agree), replaced by DISCOPOP_<BACKEND>. */
function executableOf(
  file: string,
  backend: string | undefined,
  entry: BackendEntry | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const fromEnv =
    backend !== undefined && EXECUTABLE_ENV[backend] !== undefined ? env[EXECUTABLE_ENV[backend]] : undefined;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (entry?.executable !== undefined && entry.binary !== undefined && entry.executable !== entry.binary) {
    throw new UsageError(
      `${file}: backends.${backend}: executable '${entry.executable}' and binary '${entry.binary}' name different programs; keep one`,
    );
  }
  const written = entry?.executable ?? entry?.binary;
  if (written === undefined) return undefined;
  return isAbsolute(written) || !written.includes('/') ? written : resolve(dirname(file), written);
}

/**
 * Backend options: the connection's `backend_options`, then the same names at the connection's
 * top level, then the backend section's `options`. Extra arguments and environment: the backend
 * section's first, the connection's added after (a variable of both takes the connection's value).
 */
function callAdditions(connection: Connection | undefined, entry: BackendEntry | undefined): CallAdditions {
  const backendOptions: Record<string, BackendOptionValue> = {};
  for (const name of BACKEND_OPTION_NAMES) {
    const value = [connection?.backend_options?.[name], connection?.[name], entry?.options?.[name]].find(isSet);
    if (value !== undefined) backendOptions[name] = value;
  }
  return {
    backendOptions,
    extraArgs: [...(entry?.extra_args ?? []), ...(connection?.extra_args ?? [])],
    env: { ...entry?.env, ...connection?.env },
  };
}

/** The key a refused setting was written under, so the message points at the line to change. */
function placesIn(
  file: string,
  connectionName: string | undefined,
  backend: string | undefined,
  connection: Connection | undefined,
  entry: BackendEntry | undefined,
) {
  const inConnection = `${file}: connections.${connectionName}`;
  const inBackend = `${file}: backends.${backend}`;
  return {
    option: (name: string) => {
      const key = name as (typeof BACKEND_OPTION_NAMES)[number];
      if (isSet(connection?.backend_options?.[key])) return `${inConnection}.backend_options.${name}`;
      if (isSet(connection?.[key])) return `${inConnection}.${name}`;
      return `${inBackend}.options.${name}`;
    },
    arg: (arg: string) =>
      connection?.extra_args?.includes(arg) ? `${inConnection}.extra_args` : `${inBackend}.extra_args`,
    env: (name: string) =>
      connection?.env?.[name] !== undefined ? `${inConnection}.env.${name}` : `${inBackend}.env.${name}`,
  };
}

/** For a backend found by detection, which no place in the configuration named. */
export function checkIsolation(descriptor: Descriptor, settings: AgentSettings, file: string): void {
  const additions = {
    backendOptions: settings.backendOptions ?? {},
    extraArgs: settings.extraArgs ?? [],
    env: settings.env ?? {},
  };
  const problems = isolationProblems(descriptor, additions, {
    option: (name) => `${file}: backend_options.${name}`,
    arg: () => `${file}: extra_args`,
    env: (name) => `${file}: env.${name}`,
  });
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
}
