// The review page of runs the demo does not produce: a killed run, and text that must not become markup.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it, onTestFinished } from 'vitest';
import { CHROMIUM_PATH, openPage } from '../../scripts/docs-screenshot.mjs';
import { funnelOf } from '../../src/report/funnel.js';
import { gatherReview } from '../../src/report/html/review-data.js';
import { renderPage } from '../../src/report/html/page.js';
import type { EventInput } from '../../src/formats/events.js';
import { SAMPLE_RUN, stamped } from './events.js';

async function pageFor(events: EventInput[]): Promise<string> {
  return (await writePage(events)).html;
}

async function writePage(events: EventInput[]): Promise<{ html: string; file: string }> {
  const dotDir = join(mkdtempSync(join(tmpdir(), 'report-page-')), '.discopop');
  onTestFinished(() => rmSync(join(dotDir, '..'), { recursive: true, force: true }));
  mkdirSync(join(dotDir, 'patch_repair'), { recursive: true });
  writeFileSync(
    join(dotDir, 'patch_repair', 'progress.jsonl'),
    stamped(events)
      .map((e) => `${JSON.stringify(e)}\n`)
      .join(''),
  );
  const html = renderPage(await gatherReview(dotDir), { diff2htmlCss: '' });
  const file = join(dotDir, 'patch_repair', 'report.html');
  writeFileSync(file, html);
  return { html, file };
}

it('marks a killed run and lists the suggestions it did not finish', async () => {
  const cut = SAMPLE_RUN.findIndex((e) => e.type === 'repair-started' && e.id === 'c');
  const html = await pageFor(SAMPLE_RUN.slice(0, cut + 1));
  expect(html).toContain('<p class="warning">The run did not finish');
  expect(html).toMatch(/<tr data-id="c" data-status="unfinished">/);
  expect(html).toMatch(/<li class="status status-unfinished" data-total="unfinished">not finished: <b>1<\/b><\/li>/);
  expect(html).toMatch(/<li class="status status-repaired" data-total="repaired">repaired: <b>1<\/b><\/li>/);
});

it('escapes compiler text and ids instead of rendering them as markup', async () => {
  const events = SAMPLE_RUN.map((e) =>
    e.type === 'suggestion-finished' && e.record.id === 'c'
      ? { ...e, record: { ...e.record, first_error: 'x.c:1: error: <script>alert(1)</script> & "q"' } }
      : e,
  );
  const html = await pageFor(events);
  expect(html).not.toContain('<script>');
  expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;q&#34;');
});

/** SAMPLE_RUN as the pipeline records it: the funnel counted from its events, usage per suggestion, b's repair taking sum out of its reduction. */
function recordedRun(): EventInput[] {
  const funnel = funnelOf(stamped(SAMPLE_RUN), { strict: false, writes: true });
  const racy = {
    file: '1',
    directive: '#pragma omp parallel for reduction(+:sum)',
    kind: 'clause-removed' as const,
    clause: 'reduction(+:)',
    from: 'reduction(+:sum)',
  };
  return SAMPLE_RUN.map((e) => {
    if (e.type === 'run-finished')
      return { ...e, run: { ...e.run, funnel, input_tokens: 1200, output_tokens: 300, cost_usd: 0.0123 } };
    if (e.type === 'suggestion-finished' && e.record.id === 'b')
      return {
        ...e,
        record: {
          ...e.record,
          input_tokens: 1200,
          output_tokens: 300,
          cost_usd: 0.0123,
          clause_changes: [racy],
          may_race: [racy],
        },
      };
    return e;
  });
}

it.skipIf(!existsSync(CHROMIUM_PATH))(
  "draws the funnel as bars as long as each stage's share of the answers, and marks a repair that may race (Chromium)",
  async () => {
    const { file } = await writePage(recordedRun());
    const opened = await openPage(pathToFileURL(file).href);
    try {
      const { page } = opened;
      const figure = page.locator('figure.funnel[data-tier="agent"][data-backend="claude"]');
      expect(await figure.locator('figcaption').textContent()).toBe('Agent: claude, sonnet');
      const stages = await figure
        .locator('li')
        .evaluateAll((items) =>
          items.map((li) => [li.getAttribute('data-stage'), Number(li.getAttribute('data-count'))]),
        );
      expect(stages).toEqual([
        ['answered', 2],
        ['extracted', 2],
        ['applies', 2],
        ['canonical', 2],
        ['directives_kept', 2],
        ['builds', 1],
        ['written', 1],
      ]);
      const width = async (stage: string) =>
        (await figure.locator(`li[data-stage="${stage}"] .bar`).boundingBox())!.width;
      const full = await width('answered');
      expect(full).toBeGreaterThan(100);
      expect(await width('directives_kept')).toBeCloseTo(full, 0);
      expect((await width('builds')) / full).toBeCloseTo(0.5, 2);

      expect(await page.locator('tr[data-id="b"] .may-race').count()).toBe(1);
      expect(await page.locator('tr[data-id="c"] .may-race').count()).toBe(0);
      expect(await page.locator('#s-b [data-may-race]').textContent()).toContain(
        'removes reduction(+:sum) from "#pragma omp parallel for reduction(+:sum)"',
      );
      expect(await page.locator('tr[data-id="b"] [data-usage]').textContent()).toBe('1200 / 300, $0.0123');
      expect(await page.locator('tr[data-id="c"] [data-usage]').textContent()).toBe('-');
      expect(await page.locator('#s-b .usage').textContent()).toBe(
        'Agent usage reported: 1200 input tokens, 300 output tokens, $0.0123',
      );
      expect(await page.locator('.facts').textContent()).toContain('1200 input tokens, 300 output tokens, $0.0123');
    } finally {
      await opened.close();
    }
  },
);
