// Runs one store operation in its own process so a test can kill it for real, at a fault point
// (PATCH_REPAIR_FAULT) or from outside. Imports the built dist/, as the installed CLI would.
import { writeFileSync } from 'node:fs';
import { acquireLock, createRunScratch, openEventLog, restoreAll, writeBack } from '../../../dist/store/index.js';

const request = JSON.parse(process.argv[2]);

switch (request.op) {
  case 'write-back': {
    const canonical = new Map(Object.entries(request.canonical));
    const result = await writeBack(
      request.dotDir,
      { id: request.id, dir: '', files: [], pattern: null, hotspot: null },
      canonical,
    );
    if (!result.written) throw new Error(result.problem);
    break;
  }
  case 'write-back-tampered': {
    // Stands for another program writing into the folder between the renames and the re-read;
    // the test delivers the signal from a fault point.
    process.on('SIGUSR2', () => writeFileSync(request.tamper, 'changed behind our back\n'));
    const canonical = new Map(Object.entries(request.canonical));
    const result = await writeBack(
      request.dotDir,
      { id: request.id, dir: '', files: [], pattern: null, hotspot: null },
      canonical,
    );
    process.stdout.write(JSON.stringify(result));
    break;
  }
  case 'try-lock': {
    try {
      const lock = await acquireLock(request.dotDir);
      process.stdout.write(`won ${lock.notice}\n`);
      await new Promise((resolve) => setTimeout(resolve, request.holdMs));
      await lock.release();
    } catch (error) {
      process.stdout.write(`refused ${error.constructor.name}: ${error.message}\n`);
    }
    break;
  }
  case 'restore':
    await restoreAll(request.dotDir);
    break;
  case 'hold-lock': {
    await acquireLock(request.dotDir);
    writeFileSync(request.ready, String(process.pid));
    // Hold the lock until the test kills this process.
    setInterval(() => undefined, 1000);
    break;
  }
  case 'lock-then-exit':
    await acquireLock(request.dotDir);
    // Ends without release(): the exit hook must still remove the lock.
    process.exit(0);
    break;
  case 'scratch-then-die': {
    const scratch = await createRunScratch({ dotDir: request.dotDir, workDir: request.workDir, runId: request.runId });
    writeFileSync(request.ready, scratch.dir);
    process.kill(process.pid, 'SIGKILL');
    break;
  }
  case 'emit-then-die': {
    const log = openEventLog(request.dotDir);
    for (let i = 0; i < request.count; i++) log.emit({ type: 'notice', level: 'info', message: `event ${i}` });
    process.kill(process.pid, 'SIGKILL');
    break;
  }
  default:
    throw new Error(`unknown op ${request.op}`);
}
