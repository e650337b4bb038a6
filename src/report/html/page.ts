// The review page: one self-contained HTML file. Its only CSS is inlined (diff2html's and ours), it
// has no script, and its Content-Security-Policy forbids loading anything, so it reads the same
// offline as online. Transcript links are relative to patch_repair/, where the page is written.
// The status filter is checkboxes and CSS `:has()` rules: it works from a file, without a script.
import { isVerifiedRepair } from '../../formats/statuses.js';
import { html as diffToHtml } from 'diff2html';
import type { StoredAttempt } from '../../store/index.js';
import type { FunnelEntry, SuggestionRecord, SuggestionStatus } from '../../formats/results.js';
import { SUGGESTION_STATUSES } from '../../formats/results.js';
import type { ReviewData, SuggestionReview } from './review-data.js';
import { PAGE_CSS } from './page-css.js';
import type { RepairChange } from './repair-change.js';
import { pairText } from '../../repair/checks/races.js';
import { raceVerdictLine } from '../races.js';
import { agentLabel } from '../run-replay.js';
import { describeNotConsidered, ENDPOINT_DOWN_NOTE, usageLine } from '../summary.js';
import { funnelStages } from '../funnel.js';
import { describeWeakening } from '../../repair/checks/strict.js';
import { validateText } from '../run-check-text.js';
import { describeProbe } from '../event-line.js';

const STATUS_TITLES: Record<SuggestionStatus | 'unfinished', string> = {
  ok: 'builds as generated',
  repaired: 'repaired',
  not_applied: 'generated patches do not apply, not repaired',
  failed: 'failed',
  agent_unreachable: 'agent unreachable',
  skipped: 'skipped',
  unfinished: 'not finished',
};

export function renderPage(data: ReviewData, o: { diff2htmlCss: string }): string {
  const { run } = data.replay.results;
  const ordered = reviewOrder(data.suggestions);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>patch-repair review: run ${esc(run.id)}</title>
<style>${o.diff2htmlCss}</style>
<style>${PAGE_CSS}</style>
<style>${filterCss(ordered)}</style>
</head>
<body>
${header(data)}
${filter(ordered)}
${table(ordered)}
${ordered.map(section).join('\n')}
</body>
</html>
`;
}

function header(data: ReviewData): string {
  const { replay } = data;
  const { run } = replay.results;
  const facts: [string, string][] = [
    ['run', run.id],
    ['mode', run.mode],
    ['started', run.started],
    ['finished', replay.finished ? (run.finished ?? '') : 'did not finish'],
    ['backend', run.backend ?? agentLabel(replay.results) ?? '-'],
    ['model', run.model ?? '-'],
    ['.discopop', run.dot_discopop],
    ['config', run.config],
    ['exit code', run.exit_code === null ? '-' : String(run.exit_code)],
  ];
  if (data.fromHistory) facts.push(['recorded in', `patch_repair/history/ (a later run followed it)`]);
  if (run.openmp_probe) facts.push(['OpenMP probe', describeProbe(run.openmp_probe)]);
  if (run.not_considered.length > 0) facts.push(['not considered', describeNotConsidered(run.not_considered)]);
  const usage = usageLine(run);
  if (usage) facts.push(['agent usage', usage.replace(/^Agent usage reported: /, '')]);
  const unfinished = replay.unfinished.length;
  const totals = [
    ...SUGGESTION_STATUSES.map((status) => [status, run.counts[status] ?? 0] as const),
    ['unfinished', unfinished] as const,
  ]
    .filter(([status, count]) => count > 0 || status === 'agent_unreachable')
    .map(
      ([status, count]) =>
        `<li class="status status-${status}" data-total="${status}">${esc(STATUS_TITLES[status])}: <b>${count}</b></li>`,
    )
    .join('');
  const warning = replay.finished
    ? ''
    : `<p class="warning">The run did not finish: its progress.jsonl ends at ${esc(replay.lastEventAt)}${replay.truncated ? ' with a cut-off line' : ''}. Shown up to there.</p>`;
  const endpoint = run.endpoint_down ? `<p class="warning">${ENDPOINT_DOWN_NOTE}</p>` : '';
  return `<header>
<h1>patch-repair review</h1>
${warning}${endpoint}
<dl class="facts">${facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}</dl>
<ul class="totals">${totals}</ul>
${run.funnel.length > 0 ? `<h2>Where answers were lost</h2>\n${run.funnel.map(funnelChart).join('\n')}` : ''}
<details><summary>options</summary><pre>${esc(JSON.stringify(run.options, null, 2))}</pre></details>
</header>`;
}

type Shown = SuggestionStatus | 'unfinished';

const statusOf = (s: SuggestionReview): Shown => s.record?.status ?? 'unfinished';

/** A suggestion that built as generated, or was skipped, asks nothing of the reviewer. */
function needsReview(s: SuggestionReview): boolean {
  const status = statusOf(s);
  return status !== 'ok' && status !== 'skipped';
}

/** Suggestions that need review first, each group in the run's order. */
function reviewOrder(suggestions: readonly SuggestionReview[]): SuggestionReview[] {
  return [...suggestions.filter(needsReview), ...suggestions.filter((s) => !needsReview(s))];
}

/** The statuses the page holds, in the order of the totals. */
function shownStatuses(suggestions: readonly SuggestionReview[]): Shown[] {
  const present = new Set(suggestions.map(statusOf));
  return [...SUGGESTION_STATUSES, 'unfinished' as const].filter((status) => present.has(status));
}

function filter(suggestions: readonly SuggestionReview[]): string {
  const boxes = shownStatuses(suggestions).map((status) => {
    const count = suggestions.filter((s) => statusOf(s) === status).length;
    return `<label class="status status-${status}"><input type="checkbox" id="show-${status}" data-filter="${status}" checked> ${esc(STATUS_TITLES[status])} (${count})</label>`;
  });
  return `<form class="filter" aria-label="show suggestions by status"><span>Show:</span> ${boxes.join(' ')}</form>`;
}

/** An unticked status hides its table rows and its sections. */
function filterCss(suggestions: readonly SuggestionReview[]): string {
  return shownStatuses(suggestions)
    .map(
      (status) =>
        `body:has(#show-${status}:not(:checked)) :is(tr, section)[data-status="${status}"] { display: none; }`,
    )
    .join('\n');
}

function table(suggestions: readonly SuggestionReview[]): string {
  const rows = suggestions.map((s) => {
    const r = s.record;
    const status = r?.status ?? 'unfinished';
    const calls = r
      ? `${r.attempts}${r.unanswered > 0 ? ` / ${r.unanswered} unanswered` : ''}${r.builtin.tries > 0 ? ` (+${r.builtin.tries} built-in)` : ''}`
      : '-';
    const race = r && mayRace(r) ? ` ${MAY_RACE}` : '';
    const since = s.since ? ` <span class="since" data-since="${esc(s.since)}">${esc(s.since)}</span>` : '';
    return `<tr data-id="${esc(s.id)}" data-status="${status}">
<td><a href="#s-${esc(s.id)}">${esc(s.id)}</a></td><td>${esc(r?.hotspot ?? '-')}</td><td>${esc([...(r?.files ?? s.generated.keys())].join(', ') || '-')}</td>
<td><span class="status status-${status}">${esc(STATUS_TITLES[status])}</span>${race}${since}</td><td>${esc(calls)}</td><td data-usage>${esc(r ? usageCell(r) : '-')}</td><td>${esc(r?.error_class ?? '-')}</td></tr>`;
  });
  return `<table class="suggestions">
<thead><tr><th>id</th><th>hotspot</th><th>files</th><th>status</th><th>agent calls / unanswered</th><th>tokens in / out, cost</th><th>first error class</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`;
}

function section(s: SuggestionReview): string {
  const r = s.record;
  const status = r?.status ?? 'unfinished';
  const lines: string[] = [
    `<h2>Suggestion ${esc(s.id)} <span class="status status-${status}">${esc(STATUS_TITLES[status])}</span></h2>`,
  ];
  if (r?.first_error)
    lines.push(
      `<p class="first-error">First error (${esc(r.error_class ?? 'other')}): <code>${esc(r.first_error)}</code></p>`,
    );
  if (r?.reason) lines.push(`<p class="reason">${esc(r.reason)}</p>`);
  const weakening = r?.may_race ?? [];
  if (weakening.length > 0) {
    lines.push(
      `<p class="warning" data-may-race>${MAY_RACE} The repair ${esc(weakening.map(describeWeakening).join('; '))}. The compiler had accepted it there: the loop builds, but may now race; check it before use (--strict refuses such repairs).</p>`,
    );
  }
  const runs = r?.run_check;
  if (runs && runs.verdict !== 'not-run') {
    const how = `Runs (--check-run: execute.sh at 1 and ${runs.threads} threads, ${runs.repeats} run(s) at ${runs.threads}): ${runs.verdict}`;
    lines.push(
      `<p class="${runs.verdict === 'same' ? 'usage' : 'warning'}" data-run-check="${esc(runs.verdict)}">${esc(how)}${runs.first_difference ? `: <code>${esc(runs.first_difference)}</code>` : ''}</p>`,
    );
    const validated = validateText(runs);
    if (validated)
      lines.push(
        `<p class="${runs.validate?.passed ? 'usage' : 'warning'}" data-validate="${runs.validate?.passed ? 'passed' : 'failed'}">${esc(validated)}</p>`,
      );
  }
  const races = r?.race_check;
  if (races) {
    const pairs = races.reports
      .map((report) => `<li data-race-in-patch="${report.in_patch}"><code>${esc(pairText(report))}</code></li>`)
      .join('');
    lines.push(
      `<div class="${races.verdict === 'races' || races.verdict === 'races_elsewhere' ? 'warning' : 'usage'}" data-race-check="${esc(races.verdict)}"><p>${esc(raceVerdictLine(races))}</p>${pairs ? `<ul>${pairs}</ul>` : ''}</div>`,
    );
  }
  const usage = r ? usageLine(r) : null;
  if (usage) lines.push(`<p class="usage">${esc(usage)}</p>`);
  if (s.since)
    lines.push(
      `<p class="warning" data-since="${esc(s.since)}">Patch set on disk: ${esc(s.since)} (patch_generator/${esc(s.id)}/ no longer holds what this run wrote).</p>`,
    );
  if (s.change) lines.push(changeBlock(s.change));
  if (s.generated.size === 0 && !s.candidate && s.attempts.length === 0) {
    return `<section id="s-${esc(s.id)}" class="suggestion" data-status="${status}">\n${lines.join('\n')}\n</section>`;
  }
  const body = [panes(s), s.attempts.length > 0 ? transcripts(s) : ''].join('\n');
  // Nothing to review in a suggestion that builds or was skipped: its patch stays one click away.
  lines.push(
    status === 'ok' || status === 'skipped' ? `<details><summary>Generated patch</summary>${body}</details>` : body,
  );
  return `<section id="s-${esc(s.id)}" class="suggestion" data-status="${status}">\n${lines.join('\n')}\n</section>`;
}

/** What the repair changed: one line, then the source as generated against the source as repaired. */
function changeBlock(change: RepairChange): string {
  const notes = change.notes.map((note) => `<p class="change-note">${esc(note)}</p>`).join('');
  const diff = change.diff === '' ? '' : renderDiff(change.diff);
  const caption =
    diff === ''
      ? ''
      : '<h3>What the repair changed: the source as the generated patch leaves it (−) and as the repaired patch leaves it (+)</h3>';
  return `<div class="change" data-change><p class="change-summary" data-change-summary>Change: ${esc(change.summary)}</p>${notes}${caption}${diff}</div>`;
}

function panes(s: SuggestionReview): string {
  const generated = pane({ role: 'generated', title: 'Generated patch', patches: s.generated });
  const c = s.candidate;
  if (!c) {
    const why = s.record?.status === 'ok' ? 'Builds as generated: nothing to repair.' : 'No attempt produced a patch.';
    return `<div class="panes">${generated}<div class="pane pane-empty" data-pane="none"><h3>No candidate</h3><p>${esc(why)}</p></div></div>`;
  }
  const title = c.accepted
    ? `Repaired patch (attempt ${c.attempt})`
    : `Last rejected candidate (attempt ${c.attempt}, ${c.kind})`;
  const reason = c.reason ? `<pre class="rejection">${esc(c.reason)}</pre>` : '';
  return `<div class="panes">${generated}${pane({ role: c.accepted ? 'repaired' : 'rejected', title, patches: c.patches, before: reason })}</div>`;
}

function pane(o: { role: string; title: string; patches: Map<string, string>; before?: string }): string {
  const body = o.patches.size === 0 ? '<p>(no patch files)</p>' : [...o.patches.values()].map(renderDiff).join('\n');
  return `<div class="pane" data-pane="${o.role}"><h3>${esc(o.title)}</h3>${o.before ?? ''}${body}</div>`;
}

/** DiscoPoP names the patched side <file>.discopop_patch_generator.temp; it is the same file. */
const GENERATOR_TEMP_SUFFIX = /^(\+\+\+ \S+?)\.discopop_patch_generator\.temp(?=\s|$)/gm;

function renderDiff(patch: string): string {
  // A removed line paired with its added line marks the words that changed (`private(d,j)` → `private(j)`).
  const rendered = diffToHtml(patch.replace(GENERATOR_TEMP_SUFFIX, '$1'), {
    outputFormat: 'line-by-line',
    drawFileList: false,
    matching: 'lines',
    diffStyle: 'word',
  });
  // A text diff2html cannot read as a diff is still shown, verbatim.
  return rendered.includes('d2h-file-wrapper') ? rendered : `<pre class="raw-patch">${esc(patch)}</pre>`;
}

function transcripts(s: SuggestionReview): string {
  const items = s.attempts.map((a) => `<li>${attemptSummary(a)}: ${attemptLinks(s.id, a).join(' · ')}</li>`);
  return `<details class="transcripts"><summary>Transcripts (${s.attempts.length} ${s.attempts.length === 1 ? 'attempt' : 'attempts'})</summary><ul>${items.join('')}</ul></details>`;
}

function attemptSummary(a: StoredAttempt): string {
  const v = a.verdict;
  if (!v) return `${a.attempt}: no verdict (the run ended during this attempt)`;
  const who = v.tier === 'builtin' ? 'built-in' : `agent, conversation ${v.prompt}, turn ${v.turn}`;
  const what =
    v.outcome === 'rejected'
      ? `rejected by ${v.rejected_by ?? 'a check'}`
      : v.outcome === 'unanswered' || v.outcome === 'fatal'
        ? `${v.outcome} (${v.call_outcome})`
        : v.outcome;
  const alternatives = v.candidates.map(
    (c) =>
      `alternative ${c.candidate}: ${c.accepted ? 'accepted' : c.rejected_by ? `rejected by ${c.rejected_by}` : 'not built'}`,
  );
  return `${a.attempt} (${esc(who)}): <b>${esc(what)}</b>${alternatives.length > 0 ? ` (${esc(alternatives.join('; '))})` : ''}`;
}

const MAY_RACE = '<span class="may-race" title="a reduction or privatizing clause was removed">may race</span>';

function mayRace(r: SuggestionRecord): boolean {
  return isVerifiedRepair(r) && r.may_race.length > 0;
}

function usageCell(r: SuggestionRecord): string {
  if (r.input_tokens === null && r.output_tokens === null && r.cost_usd === null) return '-';
  const tokens = (n: number | null) => (n === null ? '?' : String(n));
  return `${tokens(r.input_tokens)} / ${tokens(r.output_tokens)}, ${r.cost_usd === null ? 'cost ?' : `$${r.cost_usd.toFixed(4)}`}`;
}

/** One horizontal bar per stage, as wide as its share of the answers; no script, so CSS widths. */
function funnelChart(entry: FunnelEntry): string {
  const stages = funnelStages(entry);
  const most = Math.max(1, entry.answered);
  const who =
    entry.tier === 'builtin'
      ? 'Built-in repairer'
      : `Agent: ${[entry.backend, entry.model].filter(Boolean).join(', ')}`;
  const rows = stages.map(
    (s) =>
      `<li data-stage="${s.stage}" data-count="${s.count}"><span>${esc(s.label)}</span><span class="track"><span class="bar" style="width: ${((100 * s.count) / most).toFixed(1)}%"></span></span><b>${s.count}</b></li>`,
  );
  return `<figure class="funnel" data-tier="${entry.tier}" data-backend="${esc(entry.backend)}"><figcaption>${esc(who)}</figcaption><ol>${rows.join('')}</ol></figure>`;
}

function attemptLinks(id: string, a: StoredAttempt): string[] {
  const base = `attempts/${encodeURIComponent(id)}/${a.attempt}`;
  const link = (path: string, label: string) => `<a href="${esc(`${base}/${path}`)}">${esc(label)}</a>`;
  const links: string[] = [];
  if (a.prompt !== null) links.push(link(a.names.prompt, 'prompt'));
  if (a.answer !== null) links.push(link(a.names.answer, 'answer'));
  for (const file of a.extracted.keys())
    links.push(link(`${a.names.candidate}/${encodeURIComponent(file)}.patch`, `candidate ${file}`));
  for (const file of a.canonical.keys())
    links.push(link(`canonical/${encodeURIComponent(file)}.patch`, `canonical ${file}`));
  if (a.verdict) links.push(link('verdict.json', 'verdict'));
  return links;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
