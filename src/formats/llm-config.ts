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

/**
 * Settings only one agent understands, as DiscoPoP's backends declare them (its `FIELDS`): claude
 * reads agent, effort and append_system_prompt, opencode agent, model_variant, attach and auto. An
 * option the chosen backend does not declare is ignored, as in DiscoPoP, so a connection can be
 * pointed at another backend without being rewritten. DiscoPoP's GUI writes each with its empty
 * default ("" or false), which means unset.
 */
const BackendOptions = {
  agent: z.string().optional(),
  effort: z.string().optional(),
  append_system_prompt: z.string().optional(),
  model_variant: z.string().optional(),
  attach: z.string().optional(),
  auto: z.boolean().optional(),
};

/** DiscoPoP adds the backend section's first, then the connection's (llm_config.py). */
const Additions = {
  extra_args: z.array(z.string()).optional().describe('arguments added to every call of the agent CLI'),
  env: z.record(z.string().min(1), z.string()).optional().describe('environment of the agent CLI only; never recorded'),
};

const ConnectionSchema = z
  .object({
    backend: z
      .string()
      .min(1)
      .optional()
      .describe('claude, opencode, builtin, a descriptor in backends/, or a descriptor file'),
    // DiscoPoP's own keys (llm_config.py): its per-call timeout, 0 or null meaning unset as there.
    timeout: z
      .number()
      .nonnegative()
      .nullable()
      .optional()
      .describe("DiscoPoP's per-call timeout in seconds; agent_timeout wins when both are set"),
    name: z.string().optional().describe("DiscoPoP's display name of the connection; not used"),
    description: z.string().optional().describe("DiscoPoP's description of the connection; not used"),
    ...SharedSettings,
    ...Additions,
    backend_options: z.object(BackendOptions).strict().optional(),
    // DiscoPoP reads a backend's options at the connection's top level too.
    ...BackendOptions,
  })
  .strict();

const BackendEntrySchema = z
  .object({
    executable: z.string().min(1).optional().describe('the agent CLI to run; relative paths are relative to this file'),
    binary: z.string().min(1).optional().describe("DiscoPoP's name for executable"),
    ...SharedSettings,
    ...Additions,
    options: z.object(BackendOptions).strict().optional(),
  })
  .strict();

export const LlmConfigSchema = z
  .object({
    $schema: z.string().optional(),
    version: z.number().int().positive().optional().describe("DiscoPoP's format version (1)"),
    /** Part of the experiment: means the same on any machine. */
    connections: z.record(z.string().min(1), ConnectionSchema).default({}),
    /** Part of the installation: where the agent lives here. */
    backends: z.record(z.string().min(1), BackendEntrySchema).default({}),
  })
  .strict();

export type LlmConfig = z.infer<typeof LlmConfigSchema>;
/** What a connection or a backend entry may set. */
export type SharedLlmSettings = { [K in keyof typeof SharedSettings]?: z.infer<(typeof SharedSettings)[K]> };
/** A setting only one agent understands (`backend_options`). */
export type BackendOptionName = keyof typeof BackendOptions;
export const BACKEND_OPTION_NAMES = Object.keys(BackendOptions) as BackendOptionName[];
