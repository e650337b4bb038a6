// Every faultPoint() in the store, in the order a write-back or a restore reaches them. The
// fault-injection tests kill a real process at each one; docs/fault-injection.md explains them.
export const WRITE_BACK_FAULT_POINTS = [
  'write-back.after-journal-prepared',
  'write-back.after-stale-digest-moved',
  'write-back.after-backup-copy',
  'write-back.after-backup',
  'write-back.after-temp-file',
  'write-back.before-commit',
  'write-back.after-commit',
  'write-back.after-written',
  'write-back.after-rename',
  'write-back.before-journal-removed',
  'write-back.after-journal-removed',
  'restore.after-journal',
  'restore.after-file',
  'restore.before-drop-backup',
  'restore.after-drop-backup',
] as const;
