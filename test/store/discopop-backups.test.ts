// One .discopop, two tools: DiscoPoP's own patch repair tool keeps backups/<id>/ and
// backups/<id>.written beside ours. Each tool must restore what the other backed up, byte for byte,
// and neither may drop the other's backup as stale. DiscoPoP's side is played by the model in
// discopop-tool.ts, whose digest is pinned to golden values computed with DiscoPoP's own backups.py,
// and, when DISCOPOP_SRC names a DiscoPoP checkout, by that backups.py itself in the same tests.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { restoreAll, restoreLogPath, upgradeWrittenDigests, writeBack } from '../../src/store/index.js';
import { digestSet, discopopDigest, readSet } from '../../src/store/patch-set-files.js';
import type { Suggestion } from '../../src/formats/types.js';
import { DISCOPOP_PLAYERS, DISCOPOP_SRC, RUN_AGAINST_DISCOPOP, repairWith } from './discopop-tool.js';
import { makeDotDir, readFolder, removeDotDir } from './helpers.js';
import { useFixture } from '../helpers/fixture.js';
import { CLI, runCli } from '../helpers/cli.js';
import { describeOutcome, runProcess } from '../../src/process.js';

const repoRoot = join(import.meta.dirname, '..', '..');
interface Golden {
  sets: { name: string; files: Record<string, string>; digest: string }[];
  folders: { folder: string; digest: string }[];
}
const golden = JSON.parse(
  readFileSync(join(repoRoot, 'fixtures', 'discopop-digests', 'golden.json'), 'utf8'),
) as Golden;
const fromBase64 = (files: Record<string, string>) =>
  new Map(Object.entries(files).map(([name, b64]) => [name, Buffer.from(b64, 'base64')]));
const repairedByDiscopop = golden.sets.find((s) => s.name.startsWith('demo suggestion 1 as DiscoPoP'))!;

describe('the digest in backups/<id>.written is the one DiscoPoP computes', () => {
  it.each(golden.sets)('$name', ({ files, digest }) => {
    expect(discopopDigest(fromBase64(files))).toBe(digest);
  });

  it.each(golden.folders)('$folder', async ({ folder, digest }) => {
    expect(discopopDigest(await readSet(join(repoRoot, folder)))).toBe(digest);
    for (const tool of DISCOPOP_PLAYERS) expect(tool.digest(join(repoRoot, folder)), tool.name).toBe(digest);
  });

  it.each(DISCOPOP_PLAYERS)('the same values from $name on each set written to a folder', async (tool) => {
    const scratch = await mkdtemp(join(tmpdir(), 'digest-'));
    try {
      for (const [index, set] of golden.sets.entries()) {
        const folder = join(scratch, String(index));
        mkdirSync(folder);
        for (const [name, bytes] of fromBase64(set.files)) writeFileSync(join(folder, name), bytes);
        expect(tool.digest(folder), set.name).toBe(set.digest);
      }
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});

if (DISCOPOP_SRC === undefined) it.skip(`DiscoPoP's own backups.py: ${RUN_AGAINST_DISCOPOP}`, () => {});

let dotDir = '';
afterEach(async () => {
  if (dotDir) await removeDotDir(dotDir);
  dotDir = '';
});

/** A .discopop whose suggestion 1 holds the demo's generated patch. */
async function demoSuggestion1(): Promise<{ generated: Buffer; repaired: Buffer }> {
  dotDir = await makeDotDir();
  cpSync(
    join(repoRoot, 'fixtures', 'demo', '.discopop', 'patch_generator', '1'),
    join(dotDir, 'patch_generator', '1'),
    { recursive: true },
  );
  return {
    generated: readFileSync(join(dotDir, 'patch_generator', '1', '3.patch')),
    repaired: fromBase64(repairedByDiscopop.files).get('3.patch')!,
  };
}

const suggestion1 = (): Suggestion => ({
  id: '1',
  dir: join(dotDir, 'patch_generator', '1'),
  files: [],
  pattern: null,
  hotspot: null,
});
const written1 = () => join(dotDir, 'patch_repair', 'backups', '1.written');
const patch1 = () => join(dotDir, 'patch_generator', '1', '3.patch');

describe.each(DISCOPOP_PLAYERS)('backups either tool can restore, with $name', (tool) => {
  it("a patch-repair write-back leaves DiscoPoP's digest, and DiscoPoP's restore puts the generated set back", async () => {
    const { generated, repaired } = await demoSuggestion1();
    const result = await writeBack(dotDir, suggestion1(), new Map([['3', repaired.toString('utf8')]]));
    expect(result.written).toBe(true);
    expect(readFileSync(written1(), 'utf8').trim()).toBe(repairedByDiscopop.digest);

    expect(tool.restoreAll(dotDir)).toEqual([1]);
    expect(readFileSync(patch1()).equals(generated)).toBe(true);
    expect(existsSync(written1())).toBe(false);
  });

  it("patch-repair's restore puts back the generated set DiscoPoP's tool backed up", async () => {
    const { generated, repaired } = await demoSuggestion1();
    repairWith(tool, dotDir, 1, { '3.patch': repaired });
    expect(readFileSync(written1(), 'utf8')).toBe(repairedByDiscopop.digest);

    const summary = await restoreAll(dotDir);
    expect(summary.restored).toEqual(['1']);
    expect(summary.dropped).toEqual([]);
    expect(readFileSync(patch1()).equals(generated)).toBe(true);
  });

  it('a write-back over a repair DiscoPoP made keeps its backup of the generated set', async () => {
    const { generated, repaired } = await demoSuggestion1();
    repairWith(tool, dotDir, 1, { '3.patch': repaired });
    const ours = repaired.toString('utf8').replace('reduction(+:sum) ', 'reduction(+:sum) schedule(static) ');
    expect((await writeBack(dotDir, suggestion1(), new Map([['3', ours]]))).written).toBe(true);

    expect(tool.restoreAll(dotDir)).toEqual([1]);
    expect(readFileSync(patch1()).equals(generated)).toBe(true);
  });

  it('an older sha256: digest that names the folder is rewritten at the next start, logged, and then DiscoPoP restores it', async () => {
    const { generated, repaired } = await demoSuggestion1();
    await writeBack(dotDir, suggestion1(), new Map([['3', repaired.toString('utf8')]]));
    writeFileSync(written1(), `${digestSet(await readSet(suggestion1().dir))}\n`);

    const lines = await upgradeWrittenDigests(dotDir);
    expect(lines).toEqual([
      "rewrote backups/1.written in DiscoPoP's digest form; it names the repair in patch_generator/1/",
    ]);
    expect(readFileSync(written1(), 'utf8').trim()).toBe(repairedByDiscopop.digest);
    expect(readFileSync(restoreLogPath(dotDir), 'utf8')).toMatch(
      /^\S+ rewrote backups\/1\.written in DiscoPoP's digest form/,
    );
    expect(await upgradeWrittenDigests(dotDir)).toEqual([]);

    expect(tool.restoreAll(dotDir)).toEqual([1]);
    expect(readFileSync(patch1()).equals(generated)).toBe(true);
  });

  it('an older sha256: digest is still read by --restore', async () => {
    const { generated, repaired } = await demoSuggestion1();
    await writeBack(dotDir, suggestion1(), new Map([['3', repaired.toString('utf8')]]));
    writeFileSync(written1(), `${digestSet(await readSet(suggestion1().dir))}\n`);
    expect((await restoreAll(dotDir)).restored).toEqual(['1']);
    expect(readFileSync(patch1()).equals(generated)).toBe(true);
  });

  it('an unreadable .written leaves the backup and the folder alone', async () => {
    const { repaired } = await demoSuggestion1();
    repairWith(tool, dotDir, 1, { '3.patch': repaired });
    await writeFile(written1(), 'half a dig');
    const summary = await restoreAll(dotDir);
    expect(summary.leftAlone).toEqual([
      { id: '1', reason: expect.stringContaining('1.written: not a patch set digest') },
    ]);
    expect(summary.line).toBe('Left 1 backup with an unreadable .written digest alone (1).');
    expect(readFileSync(patch1()).equals(repaired)).toBe(true);
    expect(readdirSync(join(dotDir, 'patch_repair', 'backups')).sort()).toEqual(['1', '1.written']);
  });

  it("a backup is stale by DiscoPoP's rule only: neither the backed-up set nor the written repair is in the folder", async () => {
    const { repaired } = await demoSuggestion1();
    // DiscoPoP backs up before its repair and records .written only after one: a backup with no
    // .written whose folder was regenerated since is stale to both tools.
    repairWith(tool, dotDir, 1, {});
    await rm(written1());
    writeFileSync(patch1(), repaired);
    const summary = await restoreAll(dotDir);
    expect(summary.movedAside.map((d) => d.id)).toEqual(['1']);
    expect(readFileSync(patch1()).equals(repaired)).toBe(true);
    expect(await readFolder(join(dotDir, 'patch_repair', 'backups'))).toEqual({});
  });
});

describe.each(DISCOPOP_PLAYERS)('cross-tool restore after real runs of the CLI, with $name', (tool) => {
  it("after a patch-repair run of the demo, DiscoPoP's restore brings back every generated patch set byte for byte", async () => {
    const { dotDir: dot } = useFixture('demo');
    const generated = new Map(
      readdirSync(join(dot, 'patch_generator')).map((id) => [id, readFolderBytes(join(dot, 'patch_generator', id))]),
    );
    const run = await runCli(dot, ['--dot-dp-path', dot, '--backend', 'builtin']);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const backedUp = readdirSync(join(dot, 'patch_repair', 'backups'))
      .filter((n) => /^\d+$/.test(n))
      .map(Number)
      .sort((a, b) => a - b);
    expect(backedUp.length).toBeGreaterThan(0);

    expect(tool.restoreAll(dot)).toEqual(backedUp);
    for (const [id, files] of generated)
      expect(readFolderBytes(join(dot, 'patch_generator', id)), `suggestion ${id}`).toEqual(files);
  });

  it("after DiscoPoP's tool repaired, patch-repair --restore puts the generated set back", async () => {
    const { dotDir: dot } = useFixture('demo');
    const generated = readFolderBytes(join(dot, 'patch_generator', '1'));
    repairWith(tool, dot, 1, {
      '3.patch': Buffer.from(
        generated['3.patch']!.toString('utf8').replace('firstprivate(n) private(i) shared(x,y) ', ''),
      ),
    });
    const run = await runCli(dot, ['--dot-dp-path', dot, '--restore']);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('Restored 1 patch set (1)');
    expect(readFolderBytes(join(dot, 'patch_generator', '1'))).toEqual(generated);
  });

  it.each(['write-back.after-written', 'write-back.before-journal-removed'])(
    "patch-repair SIGKILLed at %s, then DiscoPoP's restore, then patch-repair again: the generated set comes back and the next run repairs it",
    async (point) => {
      const { dotDir: dot } = useFixture('demo');
      const generated = readFolderBytes(join(dot, 'patch_generator', '2'));
      const args = ['--dot-dp-path', dot, '--backend', 'builtin', '-s', '2'];
      const killed = await runProcess({
        command: process.execPath,
        args: [CLI, ...args],
        cwd: dot,
        env: { PATCH_REPAIR_FAULT: point },
        timeoutMs: 240_000,
      });
      expect(killed.kind === 'signaled' && killed.signal, describeOutcome(killed)).toBe('SIGKILL');
      tool.restoreAll(dot);
      expect(readdirSync(join(dot, 'patch_generator', '2'))).toEqual(Object.keys(generated));

      const again = await runCli(dot, args);
      expect(again.exitCode, again.stdout + again.stderr).toBe(0);
      expect(again.stderr + again.stdout).toContain('suggestion 2: an interrupted write-back was undone');
      expect(readdirSync(join(dot, 'patch_generator'))).not.toContain('.patch-repair-staging');
      const restore = await runCli(dot, ['--dot-dp-path', dot, '--restore']);
      expect(restore.exitCode, restore.stdout + restore.stderr).toBe(0);
      expect(readFolderBytes(join(dot, 'patch_generator', '2'))).toEqual(generated);
    },
  );
});

function readFolderBytes(dir: string): Record<string, Buffer> {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name))]),
  );
}

// DiscoPoP's tool stopped by a signal while it builds a candidate (issue 35): its cleanup runs only
// for Python exceptions, so the folder keeps the unverified candidate, backups/<id>/ holds the
// generated set and no .written exists. DiscoPoP's rule calls that backup stale; it is the only copy
// of the generated set, and patch-repair must never lose it.
describe.each(DISCOPOP_PLAYERS)(
  "DiscoPoP's tool killed during a candidate's verification build, with $name",
  (tool) => {
    const verifyScript = join(import.meta.dirname, 'children', 'discopop-verify.py');

    /** Runs DiscoPoP's verification step in a real python3 and sends its process group `signal` mid-build. */
    async function killedMidBuild(
      signal: NodeJS.Signals,
    ): Promise<{ generated: Buffer; candidate: Buffer; repaired: Buffer }> {
      const { generated, repaired } = await demoSuggestion1();
      const candidate = Buffer.from(
        generated.toString('utf8').replace('#pragma omp parallel for', '#pragma omp parallel for schedule(dynamic)'),
      );
      expect(candidate.equals(generated)).toBe(false);
      const candidateDir = join(dotDir, '..', 'candidate');
      mkdirSync(candidateDir);
      writeFileSync(join(candidateDir, '3.patch'), candidate);
      tool.keepGenerated(dotDir, 1);
      const child = spawn('python3', [verifyScript, join(dotDir, 'patch_generator', '1'), candidateDir], {
        detached: true,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve) => child.stdout.on('data', () => resolve()));
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      process.kill(-child.pid!, signal);
      await exited;
      return { generated, candidate, repaired };
    }

    it.each(['SIGTERM', 'SIGHUP', 'SIGKILL'] as const)(
      '%s: the folder keeps the candidate, the backup the generated set, and patch-repair --restore moves it aside instead of deleting it',
      async (signal) => {
        const { generated, candidate } = await killedMidBuild(signal);
        expect(readFileSync(patch1()).equals(candidate)).toBe(true);
        expect(readFileSync(join(dotDir, 'patch_repair', 'backups', '1', '3.patch')).equals(generated)).toBe(true);
        expect(existsSync(written1())).toBe(false);

        const summary = await restoreAll(dotDir);
        expect(summary.restored).toEqual([]);
        expect(summary.movedAside.map((m) => m.id)).toEqual(['1']);
        expect(summary.line).toContain(`1 to ${summary.movedAside[0]!.to}`);
        expect(readFileSync(join(dotDir, summary.movedAside[0]!.to, '1', '3.patch')).equals(generated)).toBe(true);
        expect(readFileSync(patch1()).equals(candidate)).toBe(true);
        expect(readFileSync(restoreLogPath(dotDir), 'utf8')).toContain(
          `moved the stale backup of 1 aside to ${summary.movedAside[0]!.to}`,
        );
        // Neither tool lists the moved backup: DiscoPoP's restore after it finds nothing to drop.
        expect(tool.restoreAll(dotDir)).toEqual([]);
        expect(readFileSync(join(dotDir, summary.movedAside[0]!.to, '1', '3.patch')).equals(generated)).toBe(true);
      },
    );

    it.each(['SIGTERM', 'SIGKILL'] as const)(
      "%s, then a patch-repair repair: the generated backup is moved aside, not replaced, and survives DiscoPoP's restore",
      async (signal) => {
        const { generated, candidate, repaired } = await killedMidBuild(signal);
        const result = await writeBack(dotDir, suggestion1(), new Map([['3', repaired.toString('utf8')]]));
        expect(result).toMatchObject({
          written: true,
          superseded: expect.stringMatching(/^patch_repair\/superseded\/1-/),
        });
        const aside = join(dotDir, (result as { superseded: string }).superseded);
        expect(readFileSync(join(aside, '1', '3.patch')).equals(generated)).toBe(true);
        expect(readFileSync(patch1()).equals(repaired)).toBe(true);
        // The new backup holds what the repair replaced: DiscoPoP's candidate.
        expect(readFileSync(join(dotDir, 'patch_repair', 'backups', '1', '3.patch')).equals(candidate)).toBe(true);

        expect(tool.restoreAll(dotDir)).toEqual([1]);
        expect(readFileSync(patch1()).equals(candidate)).toBe(true);
        expect(readFileSync(join(aside, '1', '3.patch')).equals(generated)).toBe(true);
      },
    );

    it('SIGINT is a Python exception: its cleanup puts the generated set back, and nothing is stale', async () => {
      const { generated } = await killedMidBuild('SIGINT');
      expect(readFileSync(patch1()).equals(generated)).toBe(true);
      const summary = await restoreAll(dotDir);
      expect(summary.movedAside).toEqual([]);
      expect(readFileSync(patch1()).equals(generated)).toBe(true);
    });
  },
);
