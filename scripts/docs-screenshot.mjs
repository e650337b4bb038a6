#!/usr/bin/env node
// npm run docs:screenshot: runs the demo with the built-in repairer (all hotspot types, so one
// suggestion fails), writes its review page and photographs it in headless Chromium into
// docs/report.png. The tests open the page with the same launcher (test/report/review-page.test.ts).
//
// Chromium is Debian's (/usr/bin/chromium, `apt-get install chromium`); no browser is downloaded.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { instantiateFixture } from './instantiate-fixture.mjs';

export const CHROMIUM_PATH = '/usr/bin/chromium';
/** Headless, and nothing that talks to the network on the browser's own account. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const SCREENSHOT_VIEWPORT = { width: 1400, height: 1300 };

/**
 * Opens a page in Chromium with a fresh profile. `urls` collects every request the page makes, so a
 * caller can prove it made none but its own. close() ends the browser and removes the profile.
 */
export async function openPage(url) {
  const profile = mkdtempSync(join(tmpdir(), 'patch-repair-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: SCREENSHOT_VIEWPORT,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const urls = [];
  page.on('request', (request) => urls.push(request.url()));
  await page.goto(url, { waitUntil: 'load' });
  return {
    page,
    urls,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The demo run the screenshot and the tests review: built-in repairer, every hotspot type. */
export const DEMO_RUN_ARGS = ['--backend', 'builtin', '-ht', 'yes,maybe,no'];

async function main() {
  if (!existsSync(CHROMIUM_PATH)) {
    console.error(`${CHROMIUM_PATH}: not found; install Debian's Chromium first: apt-get install chromium`);
    return 1;
  }
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const cli = join(root, 'dist', 'cli.js');
  const { dotDir } = instantiateFixture('demo');
  try {
    const run = spawnSync(process.execPath, [cli, '--dot-dp-path', dotDir, ...DEMO_RUN_ARGS], {
      stdio: 'ignore',
      env: { ...process.env, CI: '1' },
    });
    // Exit code 1 is expected: the demo has a suggestion the built-in repairer cannot repair.
    if (run.status !== 0 && run.status !== 1) throw new Error(`the demo run ended with exit code ${run.status}`);
    const report = spawnSync(process.execPath, [cli, 'report', '--dot-dp-path', dotDir], { stdio: 'inherit' });
    if (report.status !== 0) throw new Error(`patch-repair report ended with exit code ${report.status}`);
    const opened = await openPage(pathToFileURL(join(dotDir, 'patch_repair', 'report.html')).href);
    try {
      const out = join(root, 'docs', 'report.png');
      await opened.page.screenshot({ path: out });
      console.log(`Wrote ${out}`);
    } finally {
      await opened.close();
    }
    return 0;
  } finally {
    rmSync(dirname(dirname(dotDir)), { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await main();
