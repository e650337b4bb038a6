// `patch-repair report`: writes patch_repair/report.html for the last run.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { writeFileAtomic } from '../../store/fs-atomic.js';
import { repairDir } from '../../store/paths.js';
import type { OutputStream } from '../terminal.js';
import { renderPage } from './page.js';
import { gatherReview } from './review-data.js';
import { runFolder } from '../run-folder.js';

export interface ReportOptions {
  dotDir: string;
  /** --run <id>: a run in history/; its page is written into its own folder there, beside its attempts/. */
  run?: string;
  stream?: OutputStream;
}

export function reportPath(dotDir: string): string {
  return join(repairDir(dotDir), 'report.html');
}

export async function report(o: ReportOptions): Promise<number> {
  const folder = await runFolder(o.dotDir, o.run);
  const data = await gatherReview(o.dotDir, folder);
  const css = await readFile(createRequire(import.meta.url).resolve('diff2html/bundles/css/diff2html.min.css'), 'utf8');
  const path = join(folder.dir, 'report.html');
  await writeFileAtomic(path, renderPage(data, { diff2htmlCss: css }));
  (o.stream ?? process.stdout).write(`Wrote ${path}\n`);
  return 0;
}
