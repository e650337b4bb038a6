// One real run of the demo (built-in repairer, every hotspot type, so one suggestion fails) on a
// pseudo-terminal, then everything a reviewer does with it afterwards: `show`, `show <id>`, and the
// review page opened in headless Chromium.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { report } from '../../src/report/index.js';
import { EventLines } from '../../src/report/reporter.js';
import { show } from '../../src/report/show.js';
import { describeChange, renderSummary } from '../../src/report/summary.js';
import { funnelLine, funnelOf } from '../../src/report/funnel.js';
import { weakensPrivatization } from '../../src/repair/checks/strict.js';
import { runProcess } from '../../src/process.js';
import { UsageError } from '../../src/errors.js';
import { atLeast, levelOf } from '../../src/log.js';
import { readEventLog, readResults } from '../../src/store/index.js';
import type { RunResults } from '../../src/formats/results.js';
import { SUGGESTION_STATUSES } from '../../src/formats/results.js';
import { CHROMIUM_PATH, DEMO_RUN_ARGS, openPage } from '../../scripts/docs-screenshot.mjs';
import { instantiateFixture } from '../../scripts/instantiate-fixture.mjs';
import { FakeTerminal } from './fake-terminal.js';
import { renderScreen } from './screen.js';

const CLI = join(import.meta.dirname, '../../dist/cli.js');
const HAVE_CHROMIUM = existsSync(CHROMIUM_PATH);
if (!HAVE_CHROMIUM)
  console.warn(`review page tests skipped: ${CHROMIUM_PATH} is missing; install it with: apt-get install chromium`);

let dotDir: string;
/** What the run wrote to its terminal, with the terminal's CR LF turned back into LF. */
let terminal: string;
let results: RunResults;

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`${CLI}: not built; run npm run build (npm test does)`);
  ({ dotDir } = instantiateFixture('demo'));
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  // script(1) gives the run a real pseudo-terminal of a known width; CI and NO_COLOR would turn
  // the bars off, so they are removed for this run only.
  const command = `stty cols 120 rows 50; exec env -u CI -u NO_COLOR ${[process.execPath, CLI, '--dot-dp-path', dotDir, ...DEMO_RUN_ARGS].map(quote).join(' ')}`;
  const run = await runProcess({
    command: 'script',
    args: ['-qec', command, '/dev/null'],
    cwd: dirname(dotDir),
    timeoutMs: 300_000,
  });
  if (run.kind !== 'exited') throw new Error(`the demo run on a pseudo-terminal did not finish: ${run.kind}`);
  expect(run.exitCode, run.stdout).toBe(1);
  terminal = run.stdout.replace(/\r\n/g, '\n');
  results = (await readResults(dotDir))!;
});

afterAll(() => {
  if (dotDir) rmSync(dirname(dirname(dotDir)), { recursive: true, force: true });
});

describe('the live run on a terminal', () => {
  it('drew a building and a repairing bar below whole event lines', async () => {
    const { events } = await readEventLog(dotDir);
    const builds = events.filter((e) => e.type === 'build-finished' && e.purpose === 'discovery');
    const failing = builds.filter((e) => e.type === 'build-finished' && !e.ok).length;
    const repairs = events.filter((e) => e.type === 'repair-started').length;
    expect(failing).toBeGreaterThan(0);

    const screen = renderScreen(terminal);
    const barRows = screen.flatMap((line, row) => (/[█░]/.test(line) ? [row] : []));
    expect(barRows).toHaveLength(2);
    expect(screen[barRows[0]!]).toMatch(
      new RegExp(`^Building +█+ ${builds.length}/${builds.length} \\| failing ${failing} \\| done$`),
    );
    expect(screen[barRows[1]!]).toMatch(new RegExp(`^Repairing +█+ ${repairs}/${repairs} \\| unanswered 0 \\| done$`));
    const lines = new EventLines();
    // A terminal at the default --log WARNING leaves out the notes (info notices) the log file keeps.
    const shown = events
      .filter(
        (e) =>
          !(e.type === 'build-finished' && e.purpose === 'discovery' && e.ok) &&
          (e.type !== 'notice' || atLeast(levelOf(e), 'WARNING')),
      )
      .flatMap((e) => lines.lines(e));
    expect(screen.slice(0, barRows[0])).toEqual(shown);
  });

  it('printed the summary that `show` prints, its table fitted to the terminal: each row one screen line, a long detail cut with …', async () => {
    const out = new FakeTerminal({ tty: false });
    expect(await show({ dotDir, stream: out })).toBe(0);
    const summary = out.text.slice(out.text.indexOf('\n\n') + 2);
    expect(summary).toBe(`${renderSummary(results)}\n`);
    expect(summary).toMatch(/^id +hotspot +files +status/);
    expect(summary).toContain('Do not build, not repaired: 1\n');
    // Outside a terminal every row is whole, however long; the demo has one wider than the terminal.
    const wide = summary.split('\n').find((line) => line.length > 120);
    expect(wide).toBeDefined();
    const fitted = `${renderSummary(results, { width: 120 })}\n`;
    expect(terminal.endsWith(`\n${fitted}`)).toBe(true);
    const shownRow = fitted.split('\n').find((line) => line.startsWith(wide!.slice(0, 60)))!;
    expect(shownRow).toHaveLength(120);
    expect(shownRow).toBe(`${wide!.slice(0, 119)}…`);
  });

  it('counted the funnel from the same events a replay reads, and printed it and the repairs that may race', async () => {
    const { events } = await readEventLog(dotDir);
    const repairs = results.suggestions.filter((r) => r.status === 'repaired');
    expect(results.run.funnel).toEqual(funnelOf(events, { strict: false, writes: true }));
    const answered = results.suggestions.filter(
      (r) => r.builtin.tries > 0 && !r.builtin.declined?.startsWith('declined'),
    ).length;
    expect(results.run.funnel).toEqual([
      {
        tier: 'builtin',
        backend: 'builtin',
        model: null,
        answered,
        extracted: answered,
        applies: answered,
        canonical: answered,
        directives_kept: answered,
        strict: null,
        builds: repairs.length,
        runs_same: null,
        written: repairs.length,
      },
    ]);
    expect(terminal).toContain(`\n${funnelLine(results.run.funnel[0]!)}\n`);
    // The demo's repairs take out only variables the compiler called undeclared or refused to
    // privatize (const): none of them may race, and no line says one might.
    const weakening = repairs.filter((r) => r.clause_changes.some(weakensPrivatization));
    expect(weakening.length).toBeGreaterThan(0);
    expect(repairs.filter((r) => r.may_race.length > 0)).toEqual([]);
    expect(terminal).not.toContain('Repairs that take a variable out');
    // Nothing was asked of an agent: no usage to report, and none invented.
    expect(results.run).toMatchObject({ input_tokens: null, output_tokens: null, cost_usd: null });
    expect(terminal).not.toContain('Agent usage reported');

    const out = new FakeTerminal({ tty: false });
    await show({ dotDir, id: weakening[0]!.id, stream: out });
    expect(out.text).not.toContain('May race');
  });
});

describe('show <id>', () => {
  it('lists the tries of a repaired suggestion and prints the accepted canonical patch as a coloured diff', async () => {
    const repaired = results.suggestions.find((r) => r.status === 'repaired')!;
    const canonicalDir = join(
      dotDir,
      'patch_repair',
      'attempts',
      repaired.id,
      String(repaired.accepted_attempt),
      'canonical',
    );
    const patch = readFileSync(join(canonicalDir, readdirSync(canonicalDir)[0]!), 'utf8');
    const added = patch.split('\n').find((line) => line.startsWith('+') && !line.startsWith('+++'))!;

    const out = new FakeTerminal({ tty: true });
    await show({ dotDir, id: repaired.id, stream: out, env: {} });
    expect(out.text).toContain(`\x1b[32m${added}\x1b[0m`);
    const plain = out.text.replace(/\x1b\[\d+m/g, '');
    expect(plain).toContain(`Suggestion ${repaired.id}: repaired`);
    expect(plain).toMatch(new RegExp(`\\n  ${repaired.accepted_attempt}  built-in \\(.*\\): accepted\\n`));
    expect(plain).toContain(
      `Accepted patch (attempt ${repaired.accepted_attempt}, ${canonicalDir}):\n${patch.replace(/\n$/, '')}`,
    );
  });

  it('says why a failed suggestion was not repaired, without colour outside a terminal', async () => {
    const failed = results.suggestions.find((r) => r.status === 'failed')!;
    const out = new FakeTerminal({ tty: false });
    await show({ dotDir, id: failed.id, stream: out });
    expect(out.text).not.toContain('\x1b');
    expect(out.text).toContain(`Suggestion ${failed.id}: failed`);
    expect(out.text).toContain(`First error (${failed.error_class}): ${failed.first_error}`);
    expect(out.text).toMatch(/\n {2}1 {2}built-in \(builtin\): declined\n/);
  });

  it('rejects an id the run did not consider', async () => {
    await expect(show({ dotDir, id: 'no-such-id', stream: new FakeTerminal({ tty: false }) })).rejects.toThrow(
      UsageError,
    );
  });

  it('shows a run killed mid-repair up to where its log ends', async () => {
    const log = readFileSync(join(dotDir, 'patch_repair', 'progress.jsonl'), 'utf8');
    const lines = log.split('\n');
    const cut = lines.findIndex((line) => line.includes('"type":"repair-started"')) + 3;
    const copy = join(mkdtempSync(join(tmpdir(), 'report-killed-')), '.discopop');
    try {
      mkdirSync(join(copy, 'patch_repair'), { recursive: true });
      writeFileSync(
        join(copy, 'patch_repair', 'progress.jsonl'),
        `${lines.slice(0, cut).join('\n')}\n${lines[cut]!.slice(0, 40)}`,
      );
      const out = new FakeTerminal({ tty: false });
      await show({ dotDir: copy, stream: out });
      const failingIds = results.suggestions.filter((r) => r.first_error !== null).map((r) => r.id);
      expect(out.text).toContain('The run did not finish:');
      expect(out.text).toContain('its last line cut off');
      expect(out.text).toContain(
        `Not finished: ${failingIds.join(', ')} (the run ended before their results were recorded)`,
      );
    } finally {
      rmSync(dirname(copy), { recursive: true, force: true });
    }
  });
});

describe.skipIf(!HAVE_CHROMIUM)(
  `the review page in headless Chromium (needs ${CHROMIUM_PATH}: apt-get install chromium)`,
  () => {
    let opened: Awaited<ReturnType<typeof openPage>>;
    let url: string;

    beforeAll(async () => {
      expect(await report({ dotDir, stream: new FakeTerminal({ tty: false }) })).toBe(0);
      url = pathToFileURL(join(dotDir, 'patch_repair', 'report.html')).href;
      opened = await openPage(url);
    });

    afterAll(async () => {
      await opened?.close();
    });

    it('has one row per suggestion, as many per status as the run counted', async () => {
      const { page } = opened;
      for (const status of SUGGESTION_STATUSES) {
        expect(await page.locator(`table.suggestions tr[data-status="${status}"]`).count(), status).toBe(
          results.run.counts[status],
        );
      }
      expect(await page.locator('table.suggestions tbody tr').count()).toBe(results.suggestions.length);
      const colour = (status: string) =>
        page
          .locator(`.totals [data-total="${status}"]`)
          .evaluate((el) => (globalThis as unknown as PageWindow).getComputedStyle(el).backgroundColor);
      const unreachable = await colour('agent_unreachable');
      for (const other of ['ok', 'repaired', 'failed', 'skipped']) expect(await colour(other)).not.toBe(unreachable);
    });

    it('puts the generated and the repaired patch side by side, line for line', async () => {
      const { page } = opened;
      const repaired = results.suggestions.filter((r) => r.status === 'repaired');
      expect(repaired.length).toBeGreaterThan(0);
      for (const record of repaired) {
        const generated = addedLines(join(dotDir, 'patch_repair', 'backups', record.id));
        const accepted = addedLines(
          join(dotDir, 'patch_repair', 'attempts', record.id, String(record.accepted_attempt), 'canonical'),
        );
        expect(generated, record.id).not.toEqual(accepted);
        const pane = (role: string) =>
          page
            .locator(`#s-${record.id} [data-pane="${role}"] .d2h-ins .d2h-code-line-ctn`)
            .evaluateAll((els) => els.map((el) => (el.textContent ?? '').trimEnd()));
        expect(await pane('generated'), record.id).toEqual(generated);
        expect(await pane('repaired'), record.id).toEqual(accepted);
        const left = await page.locator(`#s-${record.id} [data-pane="generated"]`).boundingBox();
        const right = await page.locator(`#s-${record.id} [data-pane="repaired"]`).boundingBox();
        expect(right!.x).toBeGreaterThan(left!.x + left!.width - 1);
        expect(right!.y).toBeCloseTo(left!.y, 0);
      }
    });

    it('shows why a failed suggestion has no repaired patch', async () => {
      const failed = results.suggestions.find((r) => r.status === 'failed')!;
      const section = opened.page.locator(`#s-${failed.id}`);
      expect(await section.locator('[data-pane="none"]').textContent()).toContain('No try produced a patch.');
      expect(await section.locator('.reason').textContent()).toBe(failed.reason);
      expect(await section.locator('.transcripts a[href$="verdict.json"]').getAttribute('href')).toBe(
        `attempts/${failed.id}/1/verdict.json`,
      );
    });

    it("draws the built-in repairer's funnel with one bar per check", async () => {
      const figure = opened.page.locator('figure.funnel[data-tier="builtin"]');
      const counts = await figure
        .locator('li')
        .evaluateAll((items) => items.map((li) => Number(li.getAttribute('data-count'))));
      const [entry] = results.run.funnel;
      expect(counts).toEqual([
        entry!.answered,
        entry!.extracted,
        entry!.applies,
        entry!.canonical,
        entry!.directives_kept,
        entry!.builds,
        entry!.written,
      ]);
      expect(await opened.page.locator('table.suggestions .may-race').count()).toBe(0);
    });

    it('opens each verified repair with a one-line summary of its change: the built-in rule and the clause changes', async () => {
      const { page } = opened;
      const repaired = results.suggestions.filter((r) => r.status === 'repaired');
      for (const record of repaired) {
        const summary = await page.locator(`#s-${record.id} [data-change-summary]`).textContent();
        expect(summary, record.id).toBe(
          `Change: built-in rule ${record.builtin_rule}: ${record.clause_changes.map(describeChange).join('; ')}`,
        );
      }
      // The demo's suggestion 3 privatizes `acc`, which is declared inside the loop.
      expect(await page.locator('#s-3 [data-change-summary]').textContent()).toBe(
        'Change: built-in rule drop-out-of-scope-names: -acc from private',
      );
      expect(await page.locator('section[data-status="ok"] [data-change-summary]').count()).toBe(0);
    });

    it('shows what the repair changed in the source, with the changed words marked inside the changed line', async () => {
      const { page } = opened;
      const change = page.locator('#s-3 [data-change]');
      const lines = (kind: string) =>
        change
          .locator(`tr:has(.${kind}) .d2h-code-line-ctn`)
          .evaluateAll((els) => els.map((el) => (el.textContent ?? '').trim()));
      const generated = addedLines(join(dotDir, 'patch_repair', 'backups', '3'));
      const accepted = addedLines(join(dotDir, 'patch_repair', 'attempts', '3', '1', 'canonical'));
      expect(await lines('d2h-del')).toEqual(generated.map((line) => line.trim()));
      expect(await lines('d2h-ins')).toEqual(accepted.map((line) => line.trim()));
      // Word level: of the whole directive only `acc,` is marked as removed, and nothing as added.
      expect(await change.locator('.d2h-del del').allTextContents()).toEqual(['acc,']);
      expect(await change.locator('.d2h-ins ins').count()).toBe(0);
      const marked = await change
        .locator('.d2h-del del')
        .evaluate((el) => (globalThis as unknown as PageWindow).getComputedStyle(el).backgroundColor);
      const line = await change
        .locator('.d2h-del .d2h-code-line-ctn')
        .evaluate((el) => (globalThis as unknown as PageWindow).getComputedStyle(el).backgroundColor);
      expect(marked).not.toBe(line);
    });

    it('lists the suggestions that need review first, in the table and in the sections', async () => {
      const { page } = opened;
      const rows = await page
        .locator('table.suggestions tbody tr')
        .evaluateAll((els) => els.map((el) => el.getAttribute('data-status')));
      const sections = await page
        .locator('section.suggestion')
        .evaluateAll((els) => els.map((el) => el.getAttribute('data-status')));
      const calm = (status: string | null) => status === 'ok' || status === 'skipped';
      for (const order of [rows, sections]) {
        expect(order).toContain('failed');
        expect(order.findIndex(calm)).toBe(order.filter((status) => !calm(status)).length);
        expect(order.slice(order.findIndex(calm)).every(calm)).toBe(true);
      }
    });

    it('filters by status without a server: unticking a status hides its rows and sections, ticking shows them again', async () => {
      const { page } = opened;
      const visible = (selector: string) =>
        page
          .locator(selector)
          .evaluateAll(
            (els) => els.filter((el) => (el as unknown as { checkVisibility(): boolean }).checkVisibility()).length,
          );
      const okCount = results.run.counts.ok;
      expect(await visible('tr[data-status="ok"]')).toBe(okCount);
      await page.locator('#show-ok').uncheck();
      expect(await visible('tr[data-status="ok"]')).toBe(0);
      expect(await visible('section[data-status="ok"]')).toBe(0);
      expect(await visible('tr[data-status="repaired"]')).toBe(results.run.counts.repaired);
      expect(await visible('section[data-status="repaired"]')).toBe(results.run.counts.repaired);
      await page.locator('#show-repaired').uncheck();
      expect(await visible('section[data-status="repaired"]')).toBe(0);
      expect(await visible('section[data-status="failed"]')).toBe(results.run.counts.failed);
      await page.locator('#show-ok').check();
      await page.locator('#show-repaired').check();
      expect(await visible('section[data-status="ok"]')).toBe(okCount);
      expect(await visible('section[data-status="repaired"]')).toBe(results.run.counts.repaired);
    });

    it('makes no request but for the page itself', () => {
      expect(opened.urls).toEqual([url]);
    });

    it('renders to a screenshot', async () => {
      const shot = join(dirname(dotDir), 'report.png');
      await opened.page.screenshot({ path: shot });
      expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
      expect(statSync(shot).size).toBeGreaterThan(20_000);
    });
  },
);

/** What the page's own code may use; the tests are compiled without the DOM's types. */
type PageWindow = { getComputedStyle(el: unknown): { backgroundColor: string } };

/** The `+` lines of every patch in a folder, in file order, as the page shows them. */
function addedLines(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.patch'))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n'))
    .filter((line) => line.startsWith('+') && !line.startsWith('+++'))
    .map((line) => line.slice(1).trimEnd());
}
