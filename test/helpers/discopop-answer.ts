// How DiscoPoP's PatchRepair reads a model's answer, modelled from the rules of its answer format
// (docs/backends.md): the per-file blocks between `===BEGIN PATCH <id>===` and `===END PATCH <id>===`,
// words and `=` runs case- and space-tolerant; the diff is what lies between, without the line breaks
// at either end and without a code fence wrapped around it, ending in one newline. A second block
// for an id, or an id that is not the suggestion's, makes the whole answer unreadable. With no
// block at all, a one-file suggestion's answer may be a fenced diff: the last one counts.

export type DiscopopReading = { ok: true; diffs: Map<number, string> } | { ok: false; reason: string };

const OPENER = /===\s*begin\s+patch\s+(\d+)\s*===\r?\n/gi;
const closerFor = (id: string) => new RegExp(`\\r?\\n?===\\s*end\\s+patch\\s+${id}\\s*===`, 'i');
const FENCED = /```(?:diff|patch)?\r?\n([\s\S]*?)```/g;

export function readAsDiscopop(answer: string, fileIds: readonly number[]): DiscopopReading {
  const diffs = new Map<number, string>();
  let from = 0;
  for (;;) {
    OPENER.lastIndex = from;
    const opener = OPENER.exec(answer);
    if (opener === null) break;
    const bodyStart = opener.index + opener[0].length;
    const closer = closerFor(opener[1]!).exec(answer.slice(bodyStart));
    if (closer === null) {
      from = opener.index + 1;
      continue;
    }
    const id = Number(opener[1]);
    if (diffs.has(id)) return { ok: false, reason: `two blocks for file id ${id}` };
    if (!fileIds.includes(id)) return { ok: false, reason: `file id ${id} is not one of ${fileIds.join(', ')}` };
    diffs.set(id, asDiff(answer.slice(bodyStart, bodyStart + closer.index)));
    from = bodyStart + closer.index + closer[0].length;
  }
  if (diffs.size > 0) return { ok: true, diffs };
  const fenced = [...answer.matchAll(FENCED)];
  if (fileIds.length === 1 && fenced.length > 0)
    return { ok: true, diffs: new Map([[fileIds[0]!, asDiff(fenced.at(-1)![1]!)]]) };
  return { ok: false, reason: 'no patch block' };
}

function asDiff(body: string): string {
  let text = body.replace(/^[\r\n]+|[\r\n]+$/g, '');
  if (text.trimStart().startsWith('```')) {
    FENCED.lastIndex = 0;
    const inner = FENCED.exec(text);
    if (inner !== null) text = inner[1]!.replace(/^[\r\n]+|[\r\n]+$/g, '');
  }
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}
