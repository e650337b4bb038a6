// `npm run test:durations`: the seconds each test file took in the last full run
// (test-durations.json, written by test/longest-first.ts's reporter) become test/durations.json,
// the order in which the next runs start the files, longest first. Run it after `npm test` when
// files were added or their times changed much.
import { copyFileSync, existsSync } from 'node:fs';

if (!existsSync('test-durations.json')) {
  console.error('test-durations.json: not found; run the full suite (npm test) first');
  process.exit(2);
}
copyFileSync('test-durations.json', 'test/durations.json');
console.log('test/durations.json: updated from the last full run');
