// The build stage: private workspaces, GNU patch, compile.sh, diagnostics, discovery.
export { BuildPool, type BuildPoolOptions, type BuildPurpose } from './pool.js';
export type { WorkspacePlacement } from './placement.js';
export { discover, generatedPatchSet, type DiscoveryResult, type ScreeningResume } from './discover.js';
export { parseDiagnostics, classifyError } from './diagnostics.js';
export { compileLayout } from './compile.js';
export { buildInputs, suggestionBuildDigest, version1BuildDigest, type BuildInputs } from './inputs.js';
export { createLauncher, cancelLeftJobs, type Launcher, type LauncherName } from './launcher.js';
export {
  placeProbe,
  probeRefusal,
  runOpenmpProbe,
  PROBE_DIRECTIVE,
  PROBE_IDENTIFIER,
  type ProbePlacement,
} from './probe.js';
export { preprocessPatched, type Preprocessed } from './preprocess.js';
export type { StashedObject } from './screening/stash.js';
export { changedUnitsFirst, type ChangedUnitsCounts } from './screening/changed-units.js';
