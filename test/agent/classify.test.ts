// How an agent CLI's failure is classified from its exit, stderr and HTTP status: fatal (auth,
// quota, misconfiguration) stops every agent call, transient (rate limit, server error, timeout)
// is an unanswered call, and a descriptor's own signs win over the built-in rules.
import { describe, expect, it } from 'vitest';
import { classifyFailure } from '../../src/agent/classify.js';

const plain = { signs: [] };
const c = (message: string, status?: number, stderr?: string) => {
  const f = classifyFailure({ descriptor: plain, message, status, stderr });
  return `${f.kind}:${f.reason}`;
};

describe('classifyFailure', () => {
  it('HTTP statuses: 401/403 auth, 402 quota, 429 rate limit, 5xx and 529 server error', () => {
    expect(c('x', 401)).toBe('fatal:auth');
    expect(c('x', 403)).toBe('fatal:auth');
    expect(c('x', 402)).toBe('fatal:quota');
    expect(c('x', 429)).toBe('no-answer:rate-limited');
    expect(c('x', 500)).toBe('no-answer:server-error');
    expect(c('x', 529)).toBe('no-answer:server-error');
  });

  it('an exhausted balance is fatal whatever status the provider chose', () => {
    expect(c('Your credit balance is too low to access the Anthropic API.', 400)).toBe('fatal:quota');
    expect(c('You exceeded your current quota, please check your plan (insufficient_quota)', 429)).toBe('fatal:quota');
  });

  it('connection failures and timeouts without a status', () => {
    expect(c('API Error: Unable to connect to API (ConnectionRefused)')).toBe('no-answer:unreachable');
    expect(c('APIError: Cannot connect to API: The socket connection was closed unexpectedly')).toBe(
      'no-answer:unreachable',
    );
    expect(c('Request timed out')).toBe('no-answer:timeout');
    expect(c('ProviderResponseStreamError: SSE read timed out')).toBe('no-answer:timeout');
  });

  it('a CLI that is not logged in, or given flags it does not know, cannot be used', () => {
    expect(c('Not logged in · Please run /login')).toBe('fatal:auth');
    expect(c('exited with code 1', undefined, "error: unknown option '--tools'")).toBe('fatal:misconfigured');
  });

  it('settings words are not mistaken for failures; unknown failures are transient crashes', () => {
    expect(c('segmentation fault in max_tokens handling')).toBe('no-answer:crashed');
  });

  it('descriptor signs win over the built-in rules', () => {
    const f = classifyFailure({
      descriptor: { signs: [{ pattern: 'No conversation found', reason: 'crashed' }] },
      message: 'No conversation found with session ID: x',
      status: 404,
    });
    expect(f).toEqual({ kind: 'no-answer', reason: 'crashed' });
  });
});
