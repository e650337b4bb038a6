// The review page of runs the demo does not produce: a killed run, and text that must not become markup.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { gatherReview } from '../../src/report/html/review-data.js';
import { renderPage } from '../../src/report/html/page.js';
import type { EventInput } from '../../src/formats/events.js';
import { SAMPLE_RUN, stamped } from './events.js';

async function pageFor(events: EventInput[]): Promise<string> {
  const dotDir = join(mkdtempSync(join(tmpdir(), 'report-page-')), '.discopop');
  onTestFinished(() => rmSync(join(dotDir, '..'), { recursive: true, force: true }));
  mkdirSync(join(dotDir, 'patch_repair'), { recursive: true });
  writeFileSync(join(dotDir, 'patch_repair', 'progress.jsonl'), stamped(events).map((e) => `${JSON.stringify(e)}\n`).join(''));
  return renderPage(await gatherReview(dotDir), { diff2htmlCss: '' });
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
    e.type === 'suggestion-finished' && e.record.id === 'c' ? { ...e, record: { ...e.record, first_error: 'x.c:1: error: <script>alert(1)</script> & "q"' } } : e,
  );
  const html = await pageFor(events);
  expect(html).not.toContain('<script>');
  expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;q&#34;');
});
