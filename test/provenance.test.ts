// Everything in the repository is written here (issue 44): facts from elsewhere carry over, other
// projects' code, prose and data do not. A copied file gives itself away by the licence or
// copyright header it brings along, or by the licence and origin files put beside it; patch-repair
// keeps its own licence in the root LICENSE only and puts no header in its files, so any of these
// anywhere else is a file to replace with one written here.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

/** A header sits at the top: this many lines are read, so a test quoting one further down is no copy. */
const HEADER_LINES = 40;

/** What a licence or copyright header says, each named for the report; built so this file matches none. */
const HEADER_SIGNS: readonly [string, RegExp][] = [
  ['a copyright line', new RegExp(['copy', 'right\\b.*(\\(c\\)|\\u00a9|\\b(19|20)\\d\\d\\b)'].join(''), 'i')],
  ['an SPDX licence tag', new RegExp(['SPDX', '-License-Identifier'].join(''), 'i')],
  ['the MIT grant', new RegExp(['Permission is hereby ', 'granted'].join(''), 'i')],
  ['the BSD conditions', new RegExp(['Redistribution and use in source ', 'and binary forms'].join(''), 'i')],
  ['a BSD licence notice', new RegExp(['(3|2)-Clause BSD ', 'Licen[cs]e'].join(''), 'i')],
  ['a GNU licence notice', new RegExp(['GNU (Lesser |Affero )?General ', 'Public Licen[cs]e'].join(''), 'i')],
  ['an Apache licence notice', new RegExp(['Licensed under the ', 'Apache'].join(''), 'i')],
  ['a rights reservation', new RegExp(['All rights ', 'reserved'].join(''), 'i')],
  ['a "part of another project" notice', new RegExp(['This file is part of ', 'the\\b'].join(''), 'i')],
];

/** Files that only travel with copied code; the root LICENSE is patch-repair's own. */
const PROVENANCE_NAME = /^(ORIGIN|NOTICE|COPYING|LICEN[CS]E)/i;

function filesGitKnows(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root });
  return out.toString('utf8').split('\0').filter(Boolean);
}

/** One line per finding: the file (and line), and what gave it away. */
function provenanceFindings(files: readonly string[]): string[] {
  const findings: string[] = [];
  for (const file of files) {
    if (file === 'LICENSE') continue;
    if (PROVENANCE_NAME.test(path.basename(file))) {
      findings.push(`${file}: a licence or origin file below the root`);
      continue;
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(path.join(root, file));
    } catch {
      continue; // deleted in the working tree but still in the index
    }
    if (bytes.includes(0)) continue;
    const head = bytes.toString('utf8').split('\n').slice(0, HEADER_LINES);
    for (const [index, line] of head.entries()) {
      const sign = HEADER_SIGNS.find(([, pattern]) => pattern.test(line));
      if (sign === undefined) continue;
      findings.push(`${file}:${index + 1}: ${sign[0]} in its header: ${line.trim().slice(0, 100)}`);
      break;
    }
  }
  return findings;
}

test("no file but the root LICENSE carries another project's licence or copyright, nor an ORIGIN/NOTICE/COPYING/LICENSE file", () => {
  expect(provenanceFindings(filesGitKnows())).toEqual([]);
});

test('finds a planted licence header, a planted NOTICE file, and nothing in a file of our own', () => {
  const header = path.join('test', `.provenance-probe-${process.pid}.c`);
  const notice = path.join('fixtures', 'demo', `NOTICE-probe-${process.pid}`);
  const own = path.join('test', `.provenance-own-${process.pid}.c`);
  const written = {
    [header]: [
      '/*',
      ` * ${['Copy', 'right'].join('')} (c) 2019, Some University`,
      ' * Distributed under the terms of its licence.',
      ' */',
      'int main(void) { return 0; }',
      '',
    ].join('\n'),
    [notice]: 'third-party notices\n',
    [own]: '// Shape of a reduction over a struct field, written here.\nint main(void) { return 0; }\n',
  };
  try {
    for (const [file, text] of Object.entries(written)) writeFileSync(path.join(root, file), text);
    expect(provenanceFindings([header, notice, own])).toEqual([
      `${header}:2: a copyright line in its header: * ${['Copy', 'right'].join('')} (c) 2019, Some University`,
      `${notice}: a licence or origin file below the root`,
    ]);
  } finally {
    for (const file of Object.keys(written)) rmSync(path.join(root, file), { force: true });
  }
});
