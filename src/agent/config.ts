// PLACEHOLDER until the agent-backends work lands: llm_config.json resolution.
import type { AgentSettings } from '../run-options.js';

export type AgentFlags = Partial<Omit<AgentSettings, 'executable'>>;

export const AGENT_DEFAULTS = {
  agentTimeoutS: 300,
  prompts: 2,
  retries: 2,
  maxAttempts: 6,
  agentErrorRetries: 2,
} as const;

/** Flags → connection → backend entry → descriptor defaults → built-in defaults. */
export async function resolveAgentSettings(input: {
  flags: AgentFlags;
  llmConfigPath: string;
  llmConfigExplicit: boolean;
}): Promise<AgentSettings> {
  return { ...AGENT_DEFAULTS, ...stripUndefined(input.flags) };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
