// The `env` of a DiscoPoP-written llm_config.json is for the agent process only: no file the run
// writes records a value, results.json names the variables.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { readResults, runCli } from '../helpers/cli.js';

const NO_AGENT_PATH = { PATH: ['/usr/bin', '/bin', path.dirname(process.execPath)].join(path.delimiter) };

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

describe("llm_config.json's env", () => {
  it("is recorded by name only, in results.json, progress.jsonl and the log; DiscoPoP's name, description and timeout are read", async () => {
    const { dotDir } = useFixture('demo');
    const value = 'lab-proxy-value-5f3a9c';
    mkdirSync(path.join(dotDir, 'patch_repair'), { recursive: true });
    writeFileSync(
      path.join(dotDir, 'patch_repair', 'llm_config.json'),
      // As DiscoPoP's GUI writes a connection: its name, description and per-call timeout too.
      JSON.stringify({
        version: 1,
        connections: {
          local: {
            backend: 'builtin',
            name: 'Local',
            description: 'no agent',
            timeout: 600,
            agent_timeout: 900,
            env: { LAB_PROXY_TAG: value },
            extra_args: [],
          },
        },
        backends: {},
      }),
    );
    const run = await runCli(dotDir, ['-s', '2', '--write-log', '--log', 'DEBUG'], { env: NO_AGENT_PATH });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(value);
    const written = filesUnder(path.join(dotDir, 'patch_repair')).filter((file) => !file.endsWith('llm_config.json'));
    expect(written.map((file) => path.basename(file))).toEqual(
      expect.arrayContaining(['results.json', 'progress.jsonl', 'patch_repair.log']),
    );
    for (const file of written) expect(readFileSync(file, 'latin1'), file).not.toContain(value);
    expect((readResults(dotDir).run.options as { agent: { env: unknown } }).agent.env).toEqual(['LAB_PROXY_TAG']);

    // The run says at its start that agent_timeout overrides DiscoPoP's timeout; results.json records the timeout used.
    expect(run.stdout + run.stderr).toContain(
      "connections.local: agent_timeout 900 s and DiscoPoP's timeout 600 s are both set; agent_timeout is used",
    );
    const options = readResults(dotDir).run.options as { agent: { agentTimeoutS: number }; notices?: unknown };
    expect(options.agent.agentTimeoutS).toBe(900);
    expect(options).not.toHaveProperty('notices');
  });
});
