// DiscoPoP's patch repair tool as far as backups go, so a test can play the other tool on the same
// .discopop. Two players: a model written here from the rules docs/outputs.md states (the backup of
// patch_generator/<id>/, its `.written` digest, when a backup belongs to what is on disk), and,
// when DISCOPOP_SRC names a DiscoPoP checkout, DiscoPoP's own backups.py run in python3. The model's
// digest is also pinned to values computed here with that file (fixtures/discopop-digests/golden.json).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DiscopopBackups {
  name: string;
  /** The digest of a patch set folder; null when there is no such folder. */
  digest(folder: string): string | null;
  /** Sets the generated patch set aside before a candidate goes on disk, as the tool's repair loop does. */
  keepGenerated(dotDir: string, id: number): void;
  /** Notes in backups/<id>.written which set a repair left in patch_generator/<id>/. */
  noteWritten(dotDir: string, id: number): void;
  /** `--restore`: puts back every backup that belongs to what is on disk, drops the others; the ids put back. */
  restoreAll(dotDir: string): number[];
}

/** A repair as the tool makes one: the generated set set aside, the repaired files written, the result noted. */
export function repairWith(tool: DiscopopBackups, dotDir: string, id: number, files: Record<string, Buffer>): void {
  tool.keepGenerated(dotDir, id);
  for (const [name, bytes] of Object.entries(files))
    writeFileSync(join(dotDir, 'patch_generator', String(id), name), bytes);
  tool.noteWritten(dotDir, id);
}

const NUL = Buffer.from([0]);

function isFolder(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** Where one suggestion's sets live: the generated folder, its backup, and the note of what a repair wrote. */
function places(dotDir: string, id: number) {
  const backups = join(dotDir, 'patch_repair', 'backups');
  return {
    backups,
    generated: join(dotDir, 'patch_generator', String(id)),
    backup: join(backups, String(id)),
    note: join(backups, `${id}.written`),
  };
}

/**
 * The rules of docs/outputs.md: the digest is hex SHA-256 over the folder's regular files in sorted
 * name order, each giving its name, a NUL byte, its bytes and a NUL byte. A backup belongs to what is
 * on disk while the folder holds the backed-up set or the set `.written` names; any other backup is
 * stale, and DiscoPoP's tool deletes it with its note.
 */
export const discopopModel: DiscopopBackups = {
  name: 'a model of DiscoPoP’s backups',
  digest(folder) {
    if (!isFolder(folder)) return null;
    const files = readdirSync(folder)
      .sort()
      .filter((name) => statSync(join(folder, name)).isFile());
    const stream = files.flatMap((name) => [Buffer.from(name), NUL, readFileSync(join(folder, name)), NUL]);
    return createHash('sha256').update(Buffer.concat(stream)).digest('hex');
  },
  keepGenerated(dotDir, id) {
    const at = places(dotDir, id);
    if (existsSync(at.backup) && !belongs(dotDir, id)) forget(dotDir, id);
    if (existsSync(at.backup)) return;
    mkdirSync(at.backups, { recursive: true });
    cpSync(at.generated, at.backup, { recursive: true });
  },
  noteWritten(dotDir, id) {
    const at = places(dotDir, id);
    const digest = discopopModel.digest(at.generated);
    if (digest === null) return;
    mkdirSync(at.backups, { recursive: true });
    writeFileSync(at.note, digest);
  },
  restoreAll(dotDir) {
    const { backups } = places(dotDir, 0);
    const ids = isFolder(backups)
      ? readdirSync(backups)
          .filter((name) => /^\d+$/.test(name) && isFolder(join(backups, name)))
          .map(Number)
          .sort((a, b) => a - b)
      : [];
    return ids.filter((id) => {
      if (!belongs(dotDir, id)) {
        forget(dotDir, id);
        return false;
      }
      const at = places(dotDir, id);
      rmSync(at.generated, { recursive: true, force: true });
      cpSync(at.backup, at.generated, { recursive: true });
      rmSync(at.note, { force: true });
      return true;
    });
  },
};

function belongs(dotDir: string, id: number): boolean {
  const at = places(dotDir, id);
  const onDisk = discopopModel.digest(at.generated);
  const noted = existsSync(at.note) ? readFileSync(at.note, 'utf8').trim() || null : null;
  return onDisk !== null && (onDisk === discopopModel.digest(at.backup) || onDisk === noted);
}

function forget(dotDir: string, id: number): void {
  const at = places(dotDir, id);
  rmSync(at.backup, { recursive: true, force: true });
  rmSync(at.note, { force: true });
}

/** A DiscoPoP checkout to run the real backups.py from, for the tests that also check the model against it. */
export const DISCOPOP_SRC = process.env.DISCOPOP_SRC || undefined;
export const RUN_AGAINST_DISCOPOP = 'set DISCOPOP_SRC to a DiscoPoP checkout to run these against its own Python too';

// The module is loaded from its file, not imported as a package: the package's __init__ would pull
// in what the rest of DiscoPoP needs, and backups.py needs only the standard library.
const CALL_BACKUPS = [
  'import importlib.util, json, sys',
  "spec = importlib.util.spec_from_file_location('discopop_backups', sys.argv[1])",
  'module = importlib.util.module_from_spec(spec)',
  'spec.loader.exec_module(module)',
  'print(json.dumps(getattr(module, sys.argv[2])(*json.loads(sys.argv[3]))))',
].join('\n');

/** DiscoPoP's own backups.py of the checkout at `src`, each call one python3 run. */
export function discopopOwnBackups(src: string): DiscopopBackups {
  const file = join(src, 'library', 'discopop_library', 'PatchRepair', 'backups.py');
  if (!existsSync(file))
    throw new Error(`DISCOPOP_SRC=${src}: no library/discopop_library/PatchRepair/backups.py there`);
  const call = (name: string, ...args: unknown[]): unknown =>
    JSON.parse(execFileSync('python3', ['-c', CALL_BACKUPS, file, name, JSON.stringify(args)], { encoding: 'utf8' }));
  const folders = (dotDir: string) => [join(dotDir, 'patch_repair'), join(dotDir, 'patch_generator')];
  return {
    name: `DiscoPoP’s own backups.py (${src})`,
    digest: (folder) => call('patch_set_digest', folder) as string | null,
    keepGenerated: (dotDir, id) => void call('backup_patch_set', ...folders(dotDir), id),
    noteWritten: (dotDir, id) => void call('record_written_patch_set', ...folders(dotDir), id),
    restoreAll: (dotDir) => call('restore_patch_sets', ...folders(dotDir)) as number[],
  };
}

/** Who plays DiscoPoP in the tests: the model always, DiscoPoP's own code too when there is a checkout. */
export const DISCOPOP_PLAYERS: readonly DiscopopBackups[] = [
  discopopModel,
  ...(DISCOPOP_SRC !== undefined ? [discopopOwnBackups(DISCOPOP_SRC)] : []),
];
