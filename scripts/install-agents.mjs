#!/usr/bin/env node
// Installs the pinned agent CLIs that the integration tests drive against the loopback stub.
// They go into .cache/agents/ (gitignored) and never become dependencies of the package: users
// bring their own agent CLI. Usage: node scripts/install-agents.mjs [--quiet]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Keep in step with VERSIONS in test/agent/real-cli.ts.
const AGENT_PINS = {
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.197', versionOutput: '2.1.197 (Claude Code)' },
  opencode: { pkg: 'opencode-ai', version: '1.18.33', versionOutput: '1.18.33' },
};

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const AGENTS_DIR = join(root, '.cache', 'agents');

function agentBinary(name) {
  return join(AGENTS_DIR, 'node_modules', '.bin', name);
}

function versionOf(name) {
  try {
    return execFileSync(agentBinary(name), ['--version'], {
      encoding: 'utf8',
      timeout: 30_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch {
    return null;
  }
}

function allInstalled() {
  return Object.entries(AGENT_PINS).every(([name, pin]) => versionOf(name) === pin.versionOutput);
}

// A package manager that skips install scripts leaves 500-byte placeholder launchers; these
// scripts link the platform binary in place.
function runPostinstalls() {
  const scripts = [
    join(AGENTS_DIR, 'node_modules', '@anthropic-ai', 'claude-code', 'install.cjs'),
    join(AGENTS_DIR, 'node_modules', 'opencode-ai', 'postinstall.mjs'),
  ];
  for (const script of scripts) {
    if (existsSync(script)) execFileSync(process.execPath, [script], { cwd: dirname(script), stdio: 'inherit' });
  }
}

function report() {
  for (const name of Object.keys(AGENT_PINS)) console.log(`${name}: ${agentBinary(name)} (${versionOf(name)})`);
}

function installAgents({ quiet = false } = {}) {
  if (allInstalled()) {
    if (!quiet) report();
    return;
  }
  mkdirSync(AGENTS_DIR, { recursive: true });
  const manifest = join(AGENTS_DIR, 'package.json');
  writeFileSync(manifest, JSON.stringify({ name: 'patch-repair-test-agents', private: true }, null, 2) + '\n');
  const specs = Object.values(AGENT_PINS).map((pin) => `${pin.pkg}@${pin.version}`);
  execFileSync('npm', ['install', '--prefix', AGENTS_DIR, '--no-audit', '--no-fund', '--save-exact', ...specs], {
    stdio: quiet ? 'ignore' : 'inherit',
  });
  if (!allInstalled()) runPostinstalls();
  for (const [name, pin] of Object.entries(AGENT_PINS)) {
    const got = versionOf(name);
    if (got !== pin.versionOutput) {
      throw new Error(
        `${agentBinary(name)} --version printed ${JSON.stringify(got)}, expected ${JSON.stringify(pin.versionOutput)}`,
      );
    }
  }
  // The lock file is npm's, regenerated on every install; keep only the manifest.
  rmSync(join(AGENTS_DIR, 'package-lock.json'), { force: true });
  if (!quiet) report();
}

try {
  installAgents({ quiet: process.argv.includes('--quiet') });
} catch (error) {
  console.error(`install-agents: ${error.message}`);
  process.exit(1);
}
