// A file as the hunk locator reads it: its lines, and their whitespace-free and tokenized forms,
// computed once and only when a hunk needs tolerant matching.
import { lineForms, squeeze, type LineForms } from './similarity.js';

export class FileView {
  private squeezedCache: readonly string[] | null = null;
  private positionsCache: Map<string, number[]> | null = null;
  private formsCache = new Map<number, LineForms>();

  constructor(readonly lines: readonly string[]) {}

  forms(index: number): LineForms {
    let forms = this.formsCache.get(index);
    if (forms === undefined) {
      forms = lineForms(this.lines[index]!);
      this.formsCache.set(index, forms);
    }
    return forms;
  }

  get squeezed(): readonly string[] {
    this.squeezedCache ??= this.lines.map(squeeze);
    return this.squeezedCache;
  }

  /** Where each whitespace-free line occurs, so fuzzy matching visits only places sharing lines with a hunk. */
  get positions(): Map<string, number[]> {
    if (this.positionsCache === null) {
      const positions = new Map<string, number[]>();
      this.squeezed.forEach((line, index) => {
        const list = positions.get(line);
        if (list === undefined) positions.set(line, [index]);
        else list.push(index);
      });
      this.positionsCache = positions;
    }
    return this.positionsCache;
  }
}
