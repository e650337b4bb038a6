// Turns resolved settings into an Agent, detecting the installed CLI only now, when an agent is
// really needed (never for --discover-only, --restore, show or report).
import { resolve } from 'node:path';
import { AgentUnavailableError, UsageError } from '../errors.js';
import { findExecutable } from '../process.js';
import type { AgentSettings } from '../formats/run-options.js';
import { CliAgent, type CliAgentOptions } from './cli-agent.js';
import type { Descriptor } from '../formats/descriptor.js';
import { builtinBackendNames, loadDescriptor } from './descriptor.js';
import { checkIsolation } from './config.js';
import { optionArgs } from './isolation.js';
import { MissingValue } from './template.js';
import type { Agent } from './types.js';

export interface CreateAgentOptions {
  settings: AgentSettings;
  /** The run's scratch folder; every conversation gets a fresh empty directory in it. */
  scratchDir: string;
  systemPrompt: string;
  /** Named in a refusal of llm_config.json's additions to a detected backend. */
  llmConfigPath?: string;
  /** Added to every CLI call's environment (tests: isolated HOME, the stub's address). */
  env?: Readonly<Record<string, string>>;
  /** Where detection looks; defaults to the PATH of `env`, else $PATH. */
  searchPath?: string;
  /** The run has no other repairer (--no-builtin): finding no agent is a refusal, not a notice. */
  required?: boolean;
  onRun?: CliAgentOptions['onRun'];
}

export async function createAgent(o: CreateAgentOptions): Promise<{ agent: Agent | null; notice: string | null }> {
  const { settings } = o;
  if (settings.backend === 'builtin') return { agent: null, notice: null };
  const searchPath = o.searchPath ?? o.env?.PATH ?? process.env.PATH ?? '';

  let descriptor: Descriptor;
  let notice: string | null = null;
  if (settings.backend !== undefined) {
    descriptor = await loadDescriptor(settings.backend);
  } else {
    const found = await detectInstalled(searchPath);
    if (found.length === 0) {
      const names = (await builtinBackendNames()).join(', ');
      if (o.required)
        throw new AgentUnavailableError(
          `--no-builtin leaves every repair to an agent, and no agent CLI is on PATH (looked for ${names}); install one, or name it with --backend`,
        );
      return {
        agent: null,
        notice: `no agent CLI found on PATH (looked for ${names}); the built-in repairer runs alone`,
      };
    }
    if (found.length > 1) {
      const list = found.map((f) => `${f.descriptor.name} (${f.path})`).join(', ');
      throw new UsageError(
        `several agent CLIs found on PATH: ${list}; choose one with --backend or a connection in llm_config.json`,
      );
    }
    descriptor = found[0]!.descriptor;
    notice = `using ${descriptor.name} (${found[0]!.path}), the only agent CLI found on PATH`;
    checkIsolation(descriptor, settings, o.llmConfigPath ?? 'llm_config.json');
  }

  const agent = new CliAgent({
    descriptor,
    executable: settings.executable,
    model: settings.model ?? descriptor.defaults.model ?? null,
    timeoutMs: settings.agentTimeoutS * 1000,
    scratchDir: resolve(o.scratchDir),
    systemPrompt: o.systemPrompt,
    env: o.env,
    extraArgs: [...optionArgs(descriptor, settings.backendOptions ?? {}), ...(settings.extraArgs ?? [])],
    configuredEnv: settings.env,
    onRun: o.onRun,
  });
  try {
    agent.checkArguments();
  } catch (error) {
    if (!(error instanceof MissingValue)) throw error;
    const hint = error.placeholder === 'model' ? ': give --model, or "model" in the connection' : '';
    throw new UsageError(
      `backend ${descriptor.name}: its command needs {${error.placeholder}}, which has no value${hint}`,
    );
  }
  // Found now or never: a run must not spend its builds before learning it cannot call its agent.
  if ((await findExecutable(agent.executable, searchPath)) === null) {
    const namedBy =
      settings.connection !== undefined
        ? `connection ${settings.connection}: backend ${descriptor.name}`
        : `--backend ${settings.backend ?? descriptor.name}`;
    throw new AgentUnavailableError(
      `${namedBy}: cannot start ${agent.executable}: no such executable${agent.executable.includes('/') ? '' : ' on PATH'}; install it, give its path as "executable" in llm_config.json, or choose --backend builtin`,
    );
  }
  return { agent, notice };
}

async function detectInstalled(searchPath: string): Promise<{ descriptor: Descriptor; path: string }[]> {
  const found: { descriptor: Descriptor; path: string }[] = [];
  for (const name of await builtinBackendNames()) {
    const descriptor = await loadDescriptor(name);
    const path = await findExecutable(descriptor.command[0] as string, searchPath);
    if (path) found.push({ descriptor, path });
  }
  return found;
}
