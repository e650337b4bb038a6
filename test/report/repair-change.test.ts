// The review page's account of one repair, from the patches and the source alone.
import { createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { repairChange, type ChangedFile } from '../../src/report/html/repair-change.js';
import type { ClauseChange } from '../../src/formats/results.js';

const SOURCE = [
  'void scale(int n, double *x, double f)',
  '{',
  '    int i;',
  '    double t;',
  '    for (i = 0; i < n; i++) {',
  '        t = x[i];',
  '        x[i] = t * f;',
  '    }',
  '}',
  '',
].join('\n');

/** A patch from SOURCE to `patched`, headed as the generator heads its patches. */
function patchTo(patched: string): string {
  return createTwoFilesPatch('/p/src/scale.c', '/p/src/scale.c.discopop_patch_generator.temp', SOURCE, patched);
}

function withLines(edit: (lines: string[]) => void): string {
  const lines = SOURCE.split('\n');
  edit(lines);
  return lines.join('\n');
}

const DIRECTIVE = '    #pragma omp parallel for private(t)';
/** DiscoPoP's line number put the directive above the declaration, not above the loop. */
const GENERATED = patchTo(withLines((lines) => lines.splice(3, 0, DIRECTIVE)));

function file(repaired: string, o: Partial<ChangedFile> = {}): ChangedFile {
  return { fileId: '1', relPath: 'src/scale.c', source: SOURCE, generated: GENERATED, repaired, ...o };
}

const moved: ClauseChange = {
  file: '1',
  directive: DIRECTIVE.trim(),
  kind: 'directive-moved',
  from: 'above line 4',
  to: 'above line 5',
};

describe('repairChange', () => {
  it('names a moved directive from the clause changes and does not count the line it moved across as a code edit', () => {
    const repaired = patchTo(withLines((lines) => lines.splice(4, 0, DIRECTIVE)));
    const change = repairChange({ builtin_rule: 'move-directive-onto-loop', clause_changes: [moved] }, [
      file(repaired),
    ]);
    expect(change.summary).toBe(
      'built-in rule move-directive-onto-loop: directive moved from above line 4 to above line 5',
    );
    expect(change.notes).toEqual([]);
    expect(change.diff).toContain(`-${DIRECTIVE}`);
    expect(change.diff).toContain(`+${DIRECTIVE}`);
  });

  it('counts the code lines an agent edited beside the directive, a rewritten line once', () => {
    const repaired = patchTo(
      withLines((lines) => {
        lines.splice(3, 1);
        lines.splice(3, 0, DIRECTIVE.replace('private(t)', ''));
        lines[4] = '        double t = x[i];';
        lines[5] = '        x[i] = t * f;  /* scaled */';
      }),
    );
    const change = repairChange(
      {
        builtin_rule: null,
        clause_changes: [{ ...moved, kind: 'clause-removed', clause: 'private', from: 'private(t)' }],
      },
      [file(repaired)],
    );
    // Removed: `double t;`; rewritten: the two loop-body lines. One run of 3 removed / 2 added is 3 lines.
    expect(change.summary).toBe('-private(t); code edits outside the directive: 3 lines');
  });

  it('says why it shows no source diff when the source is gone or no longer takes the repaired patch', () => {
    const repaired = patchTo(withLines((lines) => lines.splice(4, 0, DIRECTIVE)));
    const gone = repairChange({ builtin_rule: null, clause_changes: [moved] }, [file(repaired, { source: null })]);
    expect(gone.diff).toBe('');
    expect(gone.notes).toEqual(['src/scale.c: the source file cannot be read, so the change is shown as patches only']);
    const edited = repairChange({ builtin_rule: null, clause_changes: [moved] }, [
      file(repaired, { source: 'int main(void) { return 0; }\n' }),
    ]);
    expect(edited.diff).toBe('');
    expect(edited.notes[0]).toMatch(/^src\/scale\.c: the repaired patch does not apply to the source as it is now/);
  });

  it('compares with the unpatched source when the generated patch itself does not apply, and says so', () => {
    const repaired = patchTo(withLines((lines) => lines.splice(4, 0, DIRECTIVE)));
    const change = repairChange({ builtin_rule: null, clause_changes: [] }, [
      file(repaired, { generated: GENERATED.replaceAll('double t;', 'float t;') }),
    ]);
    expect(change.notes).toEqual([
      'src/scale.c: the generated patch does not apply: compared with the unpatched source',
    ]);
    expect(change.diff).toContain(`+${DIRECTIVE}`);
    expect(change.diff).not.toContain(`-${DIRECTIVE}`);
  });
});
