// `npm run test:durations`: the seconds each test file took in the last run (test-durations.json,
// written by test/longest-first.ts's reporter) are taken into test/durations.json, the order in
// which the next runs start the files, longest first. A run of a few files updates just those;
// files that no longer exist are dropped. Run it after `npm test` when files were added or their
// times changed much.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

if (!existsSync('test-durations.json')) {
  console.error('test-durations.json: not found; run the suite (npm test) first');
  process.exit(2);
}
const recorded = JSON.parse(readFileSync('test/durations.json', 'utf8'));
const latest = JSON.parse(readFileSync('test-durations.json', 'utf8'));
const merged = Object.entries({ ...recorded, ...latest })
  .filter(([file]) => existsSync(file))
  .sort(([a], [b]) => (a < b ? -1 : 1));
writeFileSync('test/durations.json', `${JSON.stringify(Object.fromEntries(merged), null, 2)}\n`);
console.log(
  `test/durations.json: ${Object.keys(latest).length} file(s) updated from the last run, ${merged.length} recorded`,
);
