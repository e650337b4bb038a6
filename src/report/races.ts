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

/** One access of a racing pair with its source line: `write at src/main.c:11`, `t = scale * 2.0;`. */
export interface RacingLine {
  access: string;
  where: string;
  text: string | null;
}

/** The two accesses of a pair, each with the source line the race build compiled there. */
export function racingLines(report: RaceReport): [RacingLine, RacingLine] {
  const of = (a: RaceReport['first'], which: string): RacingLine => {
    const where = (a.location ?? '?').replace(/:\d+$/, '').replace(/^(.*:\d+):\d+$/, '$1');
    const line = report.lines.find((l) => l.startsWith(`${where}: `));
    return { access: `${which} ${a.kind}`, where, text: line === undefined ? null : line.slice(where.length + 2) };
  };
  return [of(report.first, 'this'), of(report.previous, "another thread's")];
}

/**
 * The hunk of `patches` that added a racing pair's lines, as a patch of its own: the hunk of the
 * accesses' file whose new side holds one of them, else the first hunk of that file that adds a
 * line (the directive opening the region); null when no patch touches the file.
 */
export function racingHunk(report: RaceReport, patches: ReadonlyMap<string, string>): string | null {
  const wanted = racingLines(report).map((l) => /^(.*):(\d+)$/.exec(l.where));
  let fallback: string | null = null;
  for (const patch of patches.values()) {
    for (const file of filesOf(patch)) {
      const lines = wanted.filter((w) => w !== null && samePath(file.path, w[1]!)).map((w) => Number(w![2]));
      if (lines.length === 0) continue;
      for (const hunk of file.hunks) {
        const text = `${file.header}${hunk.text}`;
        if (lines.some((line) => line >= hunk.start && line < hunk.start + hunk.length)) return text;
        if (fallback === null && hunk.adds) fallback = text;
      }
    }
  }
  return fallback;
}

interface PatchFile {
  path: string;
  header: string;
  hunks: { start: number; length: number; adds: boolean; text: string }[];
}

function filesOf(patch: string): PatchFile[] {
  const files: PatchFile[] = [];
  const lines = patch.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const minus = lines[i]!;
    const plus = lines[i + 1];
    if (!minus.startsWith('--- ') || !plus?.startsWith('+++ ')) {
      const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(minus);
      const file = files.at(-1);
      if (hunk && file) {
        const body = [minus];
        for (let j = i + 1; j < lines.length && /^[ +\-\\]/.test(lines[j]!) && !lines[j]!.startsWith('--- '); j++)
          body.push(lines[j]!);
        file.hunks.push({
          start: Number(hunk[1]),
          length: hunk[2] === undefined ? 1 : Number(hunk[2]),
          adds: body.some((l) => l.startsWith('+')),
          text: `${body.join('\n')}\n`,
        });
      }
      continue;
    }
    const path = plus
      .slice(4)
      .split('\t')[0]!
      .replace(/\.discopop_patch_generator\.temp$/, '');
    files.push({ path, header: `${minus}\n${plus}\n`, hunks: [] });
    i++;
  }
  return files;
}

function samePath(patchPath: string, projectPath: string): boolean {
  return patchPath === projectPath || patchPath.endsWith(`/${projectPath}`);
}
