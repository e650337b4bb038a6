// llm_config.json (options.md): named connections (part of the experiment) and per-backend
// entries (part of the installation). Credentials never belong here; the agent CLI owns them.
import { z } from 'zod';

const count = z.number().int().nonnegative();
const positiveCount = z.number().int().positive();

/** Settings a connection or a backend entry may give; the same names as the flags, snake_case. */
const SharedSettings = {
  model: z.string().min(1).optional(),
  prompts: positiveCount.optional(),
  retries: count.optional(),
  max_attempts: positiveCount.optional(),
  agent_error_retries: count.optional(),
  agent_timeout: z.number().positive().optional().describe('seconds one agent call may take'),
  max_cost: z.number().positive().optional().describe('USD'),
};

const ConnectionSchema = z
  .object({
    backend: z.string().min(1).optional().describe('claude, opencode, builtin, a descriptor in backends/, or a descriptor file'),
    ...SharedSettings,
  })
  .strict();

const BackendEntrySchema = z
  .object({
    executable: z.string().min(1).optional().describe('the agent CLI to run; relative paths are relative to this file'),
    ...SharedSettings,
  })
  .strict();

export const LlmConfigSchema = z
  .object({
    $schema: z.string().optional(),
    /** Part of the experiment: means the same on any machine. */
    connections: z.record(z.string().min(1), ConnectionSchema).default({}),
    /** Part of the installation: where the agent lives here. */
    backends: z.record(z.string().min(1), BackendEntrySchema).default({}),
  })
  .strict();

export type LlmConfig = z.infer<typeof LlmConfigSchema>;
/** What a connection or a backend entry may set. */
export type SharedLlmSettings = { [K in keyof typeof SharedSettings]?: z.infer<(typeof SharedSettings)[K]> };
