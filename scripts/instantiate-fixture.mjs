#!/usr/bin/env node
// Puts a copy of fixtures/<name>/ at a real path, as if DiscoPoP had analysed the project there.
// Fixtures are recorded for the invented root /home/dev/demo; the copy's FileMapping.txt and the
// header lines of every generated patch are rewritten to the copy's root, everything else stays
// byte-identical. git keeps no empty folder, so suggestion folders that DiscoPoP leaves empty carry
// a .gitkeep marker in the fixture, removed here.
//
// Usage: node scripts/instantiate-fixture.mjs <name> [dest]   (prints the copy's .discopop path)
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const RECORDED_ROOT = '/home/dev/demo';
const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');
const EMPTY_FOLDER_MARKER = '.gitkeep';

/**
 * Copies fixtures/<name>/ to `destDir` (which must not exist or be empty; default: a fresh
 * temporary directory) and relocates it there. Returns the project root and its .discopop folder,
 * both as real paths, since DiscoPoP records resolved paths.
 */
export function instantiateFixture(name, destDir) {
  const source = path.join(FIXTURES, name);
  if (!/^[\w.-]+$/.test(name) || !existsSync(path.join(source, '.discopop'))) {
    throw new Error(`fixtures/${name}: no such fixture with a .discopop folder`);
  }
  const root = prepareDestination(destDir, name);
  cpSync(source, root, { recursive: true });
  const dotDir = path.join(root, '.discopop');

  const mapping = path.join(dotDir, 'FileMapping.txt');
  writeFileSync(mapping, relocateMapping(readFileSync(mapping, 'utf8'), root));

  const generated = path.join(dotDir, 'patch_generator');
  if (existsSync(generated)) {
    for (const id of readdirSync(generated)) {
      const folder = path.join(generated, id);
      for (const file of readdirSync(folder)) {
        const full = path.join(folder, file);
        if (file === EMPTY_FOLDER_MARKER) rmSync(full);
        else if (file.endsWith('.patch')) writeFileSync(full, relocatePatchHeaders(readFileSync(full, 'utf8'), root));
      }
    }
  }
  return { root, dotDir };
}

function prepareDestination(destDir, name) {
  if (destDir === undefined) return path.join(realpathSync(mkdtempSync(path.join(tmpdir(), `fixture-${name}-`))), name);
  mkdirSync(destDir, { recursive: true });
  if (readdirSync(destDir).length > 0) throw new Error(`${destDir}: destination is not empty`);
  return realpathSync(destDir);
}

function relocateMapping(text, root) {
  return text.replace(/^(\d+\t)(.*)$/gm, (_, id, file) => id + relocatePath(file, root));
}

/** Only the `--- ` and `+++ ` header lines name files; hunk lines are source text and stay as they are. */
function relocatePatchHeaders(text, root) {
  return text.replace(/^(---|\+\+\+) ([^\t\n]*)/gm, (line, marker, file) =>
    file.startsWith(`${RECORDED_ROOT}/`) ? `${marker} ${relocatePath(file, root)}` : line,
  );
}

function relocatePath(file, root) {
  return file.startsWith(`${RECORDED_ROOT}/`) ? root + file.slice(RECORDED_ROOT.length) : file;
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [name, dest] = process.argv.slice(2);
  if (!name) {
    process.stderr.write('usage: node scripts/instantiate-fixture.mjs <name> [dest]\n');
    process.exit(2);
  }
  try {
    process.stdout.write(`${instantiateFixture(name, dest).dotDir}\n`);
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
}
