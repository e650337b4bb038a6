// backends/*.json: how to run one agent CLI headless, where its answer and session id are, and
// how it says that no answer came (docs/backends.md). Adding a CLI means writing one of these.
import { z } from 'zod';
import { FATAL_REASONS, NO_ANSWER_REASONS } from './events.js';

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** `{"type": "result", "part.reason": ["stop", "length"]}`: every dotted path equals the value, or one of the list. */
const Conditions = z.record(z.string(), z.union([Scalar, z.array(Scalar)]));

/** One dotted path, or several whose numbers are added up (e.g. the kinds of input tokens). */
const Paths = z.union([z.string(), z.array(z.string()).min(1)]);

/** A string, or a group of strings dropped as a whole when one of its placeholders has no value. */
const Arg = z.union([z.string(), z.array(z.string()).min(1)]);

const EnvValue = z.union([
  z.string(),
  z.object({ json: z.unknown().describe('serialized to JSON after placeholders are filled in') }).strict(),
]);

const Selector = z.object({ where: Conditions.optional(), path: z.string() }).strict();

const StructuredOutput = z
  .object({
    /** json: the last JSON object stdout holds; jsonl: every JSON line is a record. */
    format: z.enum(['json', 'jsonl']),
    /** The answer: the values at `path` of every record matching `where`, joined. */
    text: Selector,
    /** The session id to fork follow-ups from; the last record that has one wins. */
    sessionId: Selector.optional(),
    /** The call answered when the last record matching `where` meets `is`. */
    answered: z.object({ where: Conditions.optional(), is: Conditions }).strict(),
    /** Any record matching `where` reports a failure, with its message and HTTP status. */
    error: z
      .object({ where: Conditions, message: Paths.optional(), status: z.string().optional() })
      .strict()
      .optional(),
    /** Summed over the records matching `where`. */
    usage: z
      .object({
        where: Conditions.optional(),
        inputTokens: Paths.optional(),
        outputTokens: Paths.optional(),
        costUsd: Paths.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const TextOutput = z.object({ format: z.literal('text') }).strict();

const Sign = z
  .object({
    /** A case-insensitive regular expression tried on the error message and stderr. */
    pattern: z.string(),
    reason: z.enum([...FATAL_REASONS, ...NO_ANSWER_REASONS]),
  })
  .strict();

export const DescriptorSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-" only'),
    description: z.string().optional(),
    /**
     * Executable and arguments of every call. Placeholders: {model}, {system_prompt}, {prompt}
     * (prompt "argument"), {prompt_file} (prompt "file"), {provider} (the model id before "/"),
     * {agent_timeout_ms}.
     */
    command: z
      .array(Arg)
      .min(1)
      .refine((c) => typeof c[0] === 'string', 'the first element must be the executable'),
    /** Added to the first call of a conversation only. */
    firstCall: z.array(Arg).default([]),
    /**
     * Added to follow-up calls, with {session_id} = the last answered turn's session. Without it
     * a follow-up replays the earlier turns in one fresh call.
     */
    followUp: z.array(Arg).optional(),
    prompt: z.enum(['stdin', 'argument', 'file']).default('stdin'),
    /** Arguments that make the CLI print its version without network; no probe when absent. */
    version: z.array(z.string()).optional(),
    /**
     * Run once before an agent's first call, for a CLI that creates its state on its first start
     * and whose first starts race when several begin at once (opencode's database). Skipped when
     * `unlessDataFile` (relative to the CLI's XDG data directory: $XDG_DATA_HOME, else
     * $HOME/.local/share) already exists.
     */
    prepare: z
      .object({ args: z.array(z.string()).min(1), unlessDataFile: z.string().min(1).optional() })
      .strict()
      .optional(),
    output: z.union([TextOutput, StructuredOutput]).default({ format: 'text' }),
    /** Checked before the built-in rules (HTTP status, common provider wording). */
    signs: z.array(Sign).default([]),
    /** Exit codes with a fixed meaning, e.g. {"2": "misconfigured"}. */
    exitCodes: z.record(z.string().regex(/^\d+$/), z.enum([...FATAL_REASONS, ...NO_ANSWER_REASONS])).default({}),
    /** Set for every call (no auto-update, telemetry or non-essential traffic). */
    env: z.record(z.string(), EnvValue).default({}),
    /**
     * Arguments each llm_config.json backend option adds, {value} being its value, e.g.
     * {"effort": ["--effort", "{value}"]}. An option not listed here is ignored, as DiscoPoP does.
     */
    options: z.record(z.string(), z.array(z.string()).min(1)).default({}),
    /**
     * What would undo the isolation `command` and `env` set up (tools, permissions, the project,
     * another conversation): backend options refused when set, flags refused in extra_args (also as
     * `--flag=value`), variables refused in env. The descriptor's own `env` keys are refused too.
     */
    isolation: z
      .object({
        options: z.array(z.string()).default([]),
        args: z.array(z.string()).default([]),
        env: z.array(z.string()).default([]),
        /**
         * Short flags that take a value: in one argument, what follows such a flag is its value
         * (`-mopenai/gpt-5`), not more flags; any other short argument is a group (`-ic`).
         */
        valueFlags: z.array(z.string().regex(/^-[A-Za-z0-9]$/, 'a short flag, e.g. "-m"')).default([]),
      })
      .strict()
      .default({ options: [], args: [], env: [], valueFlags: [] }),
    defaults: z
      .object({ model: z.string().optional(), agent_timeout: z.number().positive().optional() })
      .strict()
      .default({}),
  })
  .strict();

export type Descriptor = z.infer<typeof DescriptorSchema>;
export type StructuredOutputSpec = z.infer<typeof StructuredOutput>;
export type ConditionsSpec = z.infer<typeof Conditions>;
