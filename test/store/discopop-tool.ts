// DiscoPoP's own patch repair tool, as far as its backups go: re-implemented from the behaviour of
// backups.py in tuda-hpclab/discopop at 53a01f2 (3-Clause BSD), so a test can play the other tool on
// the same .discopop. Its digest is checked against golden values computed by that very file
// (fixtures/discopop-digests/golden.json), so the re-implementation cannot drift from it unnoticed.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const backups = (dotDir: string) => join(dotDir, 'patch_repair', 'backups');
const writtenPath = (dotDir: string, id: number) => join(backups(dotDir), `${id}.written`);

/** `patch_set_digest`: null for a folder that is not there. */
export function discopopFolderDigest(dir: string): string | null {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return null;
  const hash = createHash('sha256');
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (!statSync(path).isFile()) continue;
    hash.update(Buffer.concat([Buffer.from(name), Buffer.from([0])]));
    hash.update(readFileSync(path));
    hash.update(Buffer.from([0]));
  }
  return hash.digest('hex');
}

function readWritten(dotDir: string, id: number): string | null {
  const path = writtenPath(dotDir, id);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() || null : null;
}

function isCurrent(dotDir: string, id: number): boolean {
  const current = discopopFolderDigest(join(dotDir, 'patch_generator', String(id)));
  if (current === null) return false;
  return current === discopopFolderDigest(join(backups(dotDir), String(id))) || current === readWritten(dotDir, id);
}

function discard(dotDir: string, id: number): void {
  rmSync(join(backups(dotDir), String(id)), { recursive: true, force: true });
  rmSync(writtenPath(dotDir, id), { force: true });
}

/** `backup_patch_set` then the repaired files written and `record_written_patch_set`, as its repair loop does. */
export function discopopRepair(dotDir: string, id: number, repaired: Record<string, Buffer>): void {
  const source = join(dotDir, 'patch_generator', String(id));
  const destination = join(backups(dotDir), String(id));
  if (existsSync(destination) && !isCurrent(dotDir, id)) discard(dotDir, id);
  if (!existsSync(destination)) {
    mkdirSync(backups(dotDir), { recursive: true });
    cpSync(source, destination, { recursive: true });
  }
  for (const [name, bytes] of Object.entries(repaired)) writeFileSync(join(source, name), bytes);
  writeFileSync(writtenPath(dotDir, id), discopopFolderDigest(source)!);
}

/** `restore_patch_sets`: which ids were put back; a backup that is not current is dropped. */
export function discopopRestore(dotDir: string): number[] {
  if (!existsSync(backups(dotDir))) return [];
  const ids = readdirSync(backups(dotDir))
    .filter((name) => /^\d+$/.test(name) && statSync(join(backups(dotDir), name)).isDirectory())
    .map(Number)
    .sort((a, b) => a - b);
  const restored: number[] = [];
  for (const id of ids) {
    if (!isCurrent(dotDir, id)) {
      discard(dotDir, id);
      continue;
    }
    const destination = join(dotDir, 'patch_generator', String(id));
    rmSync(destination, { recursive: true, force: true });
    cpSync(join(backups(dotDir), String(id)), destination, { recursive: true });
    rmSync(writtenPath(dotDir, id), { force: true });
    restored.push(id);
  }
  return restored;
}

/** `backup_patch_set` as its repair loop calls it before putting a candidate on disk to build it. */
export function discopopBackup(dotDir: string, id: number): void {
  const destination = join(backups(dotDir), String(id));
  if (existsSync(destination) && !isCurrent(dotDir, id)) discard(dotDir, id);
  if (existsSync(destination)) return;
  mkdirSync(backups(dotDir), { recursive: true });
  cpSync(join(dotDir, 'patch_generator', String(id)), destination, { recursive: true });
}
