// The environment an agent CLI runs with: the user's own (so a logged-in CLI keeps its
// credentials and HOME), minus anything that points into the project, plus the descriptor's
// quiet settings.
import type { Descriptor } from '../formats/descriptor.js';
import { fill, fillJson, type Values } from './template.js';

// DiscoPoP's build variables and npm's lifecycle variables name the project's directories.
const PROJECT_VARIABLES = /^(DP_|DOT_DISCOPOP|DISCOPOP_|npm_|INIT_CWD$|OLDPWD$)/;

export function agentEnvironment(o: {
  descriptor: Descriptor;
  cwd: string;
  values: Values;
  base?: NodeJS.ProcessEnv;
  /** llm_config.json's `env`; isolation.ts has refused any variable the descriptor sets. */
  configured?: Readonly<Record<string, string>>;
  extra?: Readonly<Record<string, string>>;
}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(o.base ?? process.env)) {
    if (value !== undefined && !PROJECT_VARIABLES.test(key)) env[key] = value;
  }
  Object.assign(env, o.configured);
  env.PWD = o.cwd;
  for (const [key, value] of Object.entries(o.descriptor.env)) {
    env[key] = typeof value === 'string' ? fill(value, o.values) : JSON.stringify(fillJson(value.json, o.values));
  }
  return { ...env, ...o.extra };
}
