// Which tier each test file belongs to, in one place. `npm test` runs every file; `npm run
// test:quick` runs the quick tier: files that need no built dist/, no project build (make,
// compile.sh, CMake), no cluster, no browser and no agent CLI, so a developer can run it after every
// edit. Single compiler calls on one source (gcc -E, gcc -c of a fixture) and GNU patch/diff are
// quick. Every file must match exactly one list; test/tiers.test.ts fails on a file that matches
// none, both, or reaches from the quick tier for something only the full tier has.
export const QUICK_TIER: readonly string[] = [
  'test/*.test.ts',
  'test/agent/classify.test.ts',
  'test/agent/config.test.ts',
  'test/agent/create-agent.test.ts',
  'test/agent/descriptor.test.ts',
  'test/agent/discopop-llm-config.test.ts',
  'test/agent/recorded-output.test.ts',
  'test/build/compiler-record.test.ts',
  'test/build/location.test.ts',
  'test/build/probe.test.ts',
  'test/build/result.test.ts',
  'test/builtin/clause-edits.test.ts',
  'test/builtin/multi-file.test.ts',
  'test/builtin/parsed-diagnostics.test.ts',
  'test/builtin/scope.test.ts',
  'test/builtin/translation-unit.test.ts',
  'test/diagnostics/parsing.test.ts',
  'test/diagnostics/recorded.test.ts',
  'test/discopop/**/*.test.ts',
  'test/fixtures/demo-hotspots.test.ts',
  'test/fixtures/demo-instantiate.test.ts',
  'test/formats/**/*.test.ts',
  'test/options/**/*.test.ts',
  'test/patch/**/*.test.ts',
  'test/repair/answer-forms.test.ts',
  'test/repair/checks.test.ts',
  'test/repair/ladder.test.ts',
  'test/repair/output-compare.test.ts',
  'test/repair/prompt.test.ts',
  'test/repair/verify.test.ts',
  'test/repair/task-region-verify.test.ts',
  'test/report/candidate.test.ts',
  'test/report/repair-change.test.ts',
  'test/report/replay.test.ts',
  'test/report/reporter.test.ts',
  'test/report/summary.test.ts',
  'test/store/attempts.test.ts',
  'test/store/history.test.ts',
  'test/store/results-file.test.ts',
  'test/store/schemas.test.ts',
];

/** Only in `npm test`: the built CLI, project builds, real signals on built code, the cluster, the browser, the agent CLIs. */
export const FULL_TIER: readonly string[] = [
  'test/cli/**/*.test.ts',
  'test/pipeline/**/*.test.ts',
  'test/agent/claude-cli.test.ts',
  'test/agent/discopop-config-cli.test.ts',
  'test/agent/opencode-cli.test.ts',
  'test/agent/scripted-agent.test.ts',
  'test/build/discover.test.ts',
  'test/build/launcher.test.ts',
  'test/build/placement.test.ts',
  'test/build/pool.test.ts',
  'test/builtin/classes.test.ts',
  'test/builtin/loop-test.test.ts',
  'test/builtin/min-max.test.ts',
  'test/builtin/real-code.test.ts',
  'test/builtin/recorded-flags.test.ts',
  'test/builtin/task-region.test.ts',
  'test/diagnostics/classes.test.ts',
  'test/fixtures/demo-builds.test.ts',
  'test/repair/candidates.test.ts',
  'test/repair/loop.test.ts',
  'test/repair/run-check.test.ts',
  'test/report/history.test.ts',
  'test/report/live-run.test.ts',
  'test/report/page.test.ts',
  'test/store/event-log.test.ts',
  'test/store/lock.test.ts',
  'test/store/scratch.test.ts',
  'test/store/discopop-backups.test.ts',
  'test/store/write-back-faults.test.ts',
  'test/store/write-back.test.ts',
];

/**
 * What a quick file may not use, each with the tier's reason; the guard reads the file's own text.
 * Run in the full tier what needs one of them.
 */
export const FULL_TIER_ONLY: ReadonlyArray<{ pattern: RegExp; needs: string }> = [
  { pattern: /helpers\/cli\.js|\bdist\//, needs: 'the built dist/ (npm run build)' },
  { pattern: /\brunChild\(|\bassertDistIsFresh\(/, needs: 'the store child process, which runs dist/' },
  { pattern: /slurm-cluster/, needs: 'the Slurm cluster' },
  { pattern: /docs-screenshot|playwright/, needs: 'the browser' },
  { pattern: /real-cli\.js/, needs: 'a real agent CLI' },
];
