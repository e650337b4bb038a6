// The scripted agent's backend descriptor, shared by the TypeScript tests and the repair bench so
// both drive the same test double through the same descriptor interface as claude.
import { fileURLToPath } from 'node:url';

export const SCRIPTED_AGENT = fileURLToPath(new URL('./agent.mjs', import.meta.url));

export function scriptedDescriptor({ repliesFile, stateFile, sessions = true, delayMs = 0 }) {
  return {
    name: 'scripted',
    command: [
      process.execPath,
      SCRIPTED_AGENT,
      '--replies',
      repliesFile,
      '--state',
      stateFile,
      ...(delayMs ? ['--delay', String(delayMs)] : []),
    ],
    ...(sessions ? { followUp: ['--resume', '{session_id}'] } : {}),
    prompt: 'stdin',
    version: [SCRIPTED_AGENT, '--version'],
    output: {
      format: 'json',
      text: { where: { type: 'result' }, path: 'result' },
      sessionId: { path: 'session_id' },
      answered: { where: { type: 'result' }, is: { is_error: false } },
      error: { where: { is_error: true }, message: 'result', status: 'api_error_status' },
      usage: { inputTokens: 'usage.input_tokens', outputTokens: 'usage.output_tokens', costUsd: 'total_cost_usd' },
    },
  };
}
