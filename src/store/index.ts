// The store: everything patch-repair keeps in .discopop/patch_repair/, and the write-back into
// patch_generator/. See docs/outputs.md for the files and docs/fault-injection.md for the kill points.
export { acquireLock, lockPath, type RunLock } from './lock.js';
export { createRunScratch, cleanupStaleScratch, scratchRecordPath, type RunScratch } from './scratch.js';
export { startRun, historyDir } from './history.js';
export { readRunState, RunStateWriter, runStatePath } from './run-state.js';
export {
  writeBack,
  recoverWriteBack,
  unwritableSuggestionFolders,
  type WriteBackDone,
  type WriteBackResult,
} from './write-back.js';
export { restoreAll, type RestoreSummary } from './restore.js';
export { restoreLogPath } from './restore-log.js';
export {
  AttemptStore,
  carryOverAttempts,
  copyAttempts,
  readAttempts,
  readAttemptsIn,
  attemptsDir,
  type StoredAttempt,
} from './attempts.js';
export {
  openEventLog,
  readEventLog,
  readEventLogFile,
  readDiscopopLog,
  eventLogPath,
  type EventLog,
  type EventLogContents,
} from './event-log.js';
export { writeResults, readResults, readResultsFile, resultsPath } from './results-file.js';
export { digestDir } from './patch-set-files.js';
export { listBackups, readWrittenDigest, upgradeWrittenDigests, writtenNames } from './backup.js';
export { repairDir, writtenPaths } from './paths.js';
export { WRITE_BACK_FAULT_POINTS } from './fault-points.js';
