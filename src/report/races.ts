// How --check-races' records read in the summary, `show` and the review page.
import type { RaceCheck, RaceReport, RunResults } from '../formats/results.js';

/** `src/main.c:11 (t)`: where a racing pair is, for lists. */
export function raceSite(report: RaceReport): string {
  const line = (location: string | null) => (location ?? '?').replace(/:\d+$/, '');
  const sites = [...new Set([line(report.first.location), line(report.previous.location)])].join(' and ');
  return `${sites}${report.variable ? ` (${report.variable})` : ''}`;
}

/** `Races (--check-races, ThreadSanitizer at 2 threads): races at src/main.c:11 (t)`. */
export function raceVerdictLine(race: RaceCheck): string {
  const head = `Races (--check-races, ThreadSanitizer at ${race.threads} threads, ${race.seconds.toFixed(1)} s): `;
  if (race.verdict === 'not-run') return `${head}not run${race.detail ? `: ${race.detail}` : ''}`;
  if (race.verdict === 'clean') return `${head}none${race.detail ? ` (${race.detail})` : ''}`;
  const where = race.reports.map((r) => `${r.in_patch ? '' : 'outside the patch: '}${raceSite(r)}`).join('; ');
  return `${head}${race.verdict === 'races' ? 'races in the patched region' : 'races outside the patched regions'} at ${where}`;
}

/** The summary's lines: how many repairs were race-checked, and the suggestions that build as generated and race. */
export function raceSummaryLines(results: RunResults): string[] {
  const checked = results.suggestions.filter((r) => r.race_check !== null && r.race_check.verdict !== 'not-run');
  const first = checked[0]?.race_check;
  if (!first) return [];
  const repairs = checked.filter((r) => r.status === 'repaired' || r.status === 'not_applied');
  const generated = checked.filter((r) => r.status === 'ok');
  const racing = generated.filter(
    (r) => r.race_check!.verdict === 'races' || r.race_check!.verdict === 'races_elsewhere',
  );
  const parts = [`${repairs.length} repair${repairs.length === 1 ? '' : 's'} without a race in the patched region`];
  if (generated.length > 0)
    parts.push(`${generated.length - racing.length} of ${generated.length} that build as generated without a race`);
  const lines = [
    `Race-checked (--check-races: ThreadSanitizer with Archer at ${first.threads} threads): ${parts.join('; ')}`,
  ];
  for (const r of racing)
    lines.push(
      `Suggestion ${r.id} builds as generated, races at ${r.race_check!.reports.map(raceSite).join('; ')}; see \`patch-repair show ${r.id}\``,
    );
  return lines;
}
