// `patch-repair show` and `patch-repair report`: review a run after the fact, from what it recorded.
export { show, type ShowOptions } from './show.js';
export { report, type ReportOptions } from './html/report.js';
