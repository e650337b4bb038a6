// Which validation scripts check 7 runs, found as DiscoPoP's project manager finds them
// (Project_manager.md, "Compile script resolution"): the configuration's own
// compile_validate.sh, else the shared one in project/configs/, else compile.sh's build; nothing
// without a validate.sh.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findValidationScripts } from '../../src/build/validate.js';

let configs = '';
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function configuration(files: string[]): { dir: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'pr-validate-scripts-'));
  made.push(root);
  configs = path.join(root, 'configs');
  const dir = path.join(configs, 'tiny');
  mkdirSync(dir, { recursive: true });
  for (const file of files) writeFileSync(path.join(configs, file), '#!/bin/sh\n');
  return { dir };
}

describe('findValidationScripts', () => {
  it('finds nothing without a validate.sh, and ignores a compile_validate.sh then, as DiscoPoP does', async () => {
    expect(
      await findValidationScripts(
        configuration(['compile_validate.sh', 'tiny/compile_validate.sh', 'tiny/execute.sh']),
      ),
    ).toBeNull();
  });

  it("takes compile.sh's build when there is no compile_validate.sh", async () => {
    const config = configuration(['tiny/validate.sh']);
    expect(await findValidationScripts(config)).toEqual({
      validate: path.join(config.dir, 'validate.sh'),
      compileValidate: null,
    });
  });

  it("takes the shared compile_validate.sh, and the configuration's own over it", async () => {
    const shared = configuration(['tiny/validate.sh', 'compile_validate.sh']);
    expect((await findValidationScripts(shared))?.compileValidate).toBe(path.join(configs, 'compile_validate.sh'));
    const own = configuration(['tiny/validate.sh', 'compile_validate.sh', 'tiny/compile_validate.sh']);
    expect((await findValidationScripts(own))?.compileValidate).toBe(path.join(own.dir, 'compile_validate.sh'));
  });
});
