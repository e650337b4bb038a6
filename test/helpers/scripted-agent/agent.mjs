#!/usr/bin/env node
// A stand-in agent CLI for tests: answers each call with the next canned reply (the last one
// repeats), printing the same JSON result shape as `claude -p --output-format json`, so it is
// parsed and classified by exactly the code that handles the real CLI.
// Usage: agent.mjs --replies <file.json> --state <file> [--delay <ms>] [--resume <session id>]
// Several copies may run at once (--agent-jobs): the call counter and the log are updated under a
// lock. A reply may also be `{ "when": [[substring, reply], ...] }`: the first reply whose
// substring the prompt contains, so concurrent calls get their own suggestion's answer; and
// `{ "after": ms, "then": reply }` answers `reply` after its own delay instead of --delay.
import { appendFileSync, readFileSync, writeFileSync, existsSync, mkdirSync, rmdirSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.includes('--version')) {
  process.stdout.write('1.0.0 (scripted agent)\n');
  process.exit(0);
}
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const replies = JSON.parse(readFileSync(option('--replies'), 'utf8'));
const stateFile = option('--state');
const resumed = option('--resume');

const delayMs = Number(option('--delay') ?? 0);

const prompt = readFileSync(0, 'utf8');
const index = locked(() => {
  const n = existsSync(stateFile) ? Number(readFileSync(stateFile, 'utf8')) : 0;
  writeFileSync(stateFile, String(n + 1));
  appendFileSync(
    `${stateFile}.log`,
    JSON.stringify({
      index: n,
      prompt,
      resumed: resumed ?? null,
      cwd: process.cwd(),
      started: Date.now(),
      pid: process.pid,
    }) + '\n',
  );
  return n;
});
let reply = replies[Math.min(index, replies.length - 1)];
if (reply && typeof reply === 'object' && Array.isArray(reply.when)) {
  reply = (reply.when.find(([substring]) => prompt.includes(substring)) ?? [
    null,
    'no scripted reply matches this prompt',
  ])[1];
}
if (reply && typeof reply === 'object' && reply.after !== undefined) {
  await new Promise((resolve) => setTimeout(resolve, reply.after));
  reply = reply.then;
} else if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));

function locked(fn) {
  const lock = `${stateFile}.lock`;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
  try {
    return fn();
  } finally {
    rmdirSync(lock);
  }
}

const NO_ANSWER = {
  unreachable: { status: null, message: 'API Error: Unable to connect to API (ConnectionRefused)' },
  'server-error': { status: 500, message: 'API Error: 500 Internal server error' },
  'rate-limited': { status: 429, message: 'API Error: Request rejected (429) · rate limited' },
  timeout: { status: null, message: 'Request timed out' },
};
const FATAL = {
  auth: { status: 401, message: 'Failed to authenticate. API Error: 401 invalid x-api-key' },
  quota: { status: 400, message: 'API Error: 400 Your credit balance is too low to access the Anthropic API.' },
};

function result(fields) {
  const base = {
    type: 'result',
    subtype: 'success',
    is_error: false,
    api_error_status: null,
    session_id: `scripted-${index + 1}`,
    total_cost_usd: 0,
    usage: { input_tokens: 0, output_tokens: 0 },
  };
  process.stdout.write(JSON.stringify({ ...base, ...fields }) + '\n');
}

if (typeof reply === 'string') {
  result({ result: reply, total_cost_usd: 0.001, usage: { input_tokens: prompt.length, output_tokens: reply.length } });
  process.exit(0);
}
if (reply.hang) {
  setInterval(() => {}, 1000);
} else if (reply.noAnswer === 'crashed') {
  process.stderr.write('scripted agent: simulated crash\n');
  process.exit(134);
} else if (reply.noAnswer) {
  const { status, message } = NO_ANSWER[reply.noAnswer];
  result({ is_error: true, api_error_status: status, result: message });
  process.exit(reply.exitCode ?? 1);
} else if (reply.fatal === 'misconfigured') {
  process.stderr.write("error: unknown option '--scripted-misconfiguration'\n");
  process.exit(1);
} else if (reply.fatal) {
  const { status, message } = FATAL[reply.fatal];
  result({ is_error: true, api_error_status: status, result: message });
  process.exit(reply.exitCode ?? 1);
} else {
  process.stderr.write(`scripted agent: unknown reply ${JSON.stringify(reply)}\n`);
  process.exit(2);
}
