// A .discopop folder usually has several things wrong at once after a hand edit or a partial
// DiscoPoP run; listing them all in one go saves the user a fix-and-rerun loop per problem.
import type { z } from 'zod';
import { fileProblem, UsageError } from '../errors.js';
import { zodProblems } from '../formats/zod-problems.js';

export class Problems {
  readonly lines: string[] = [];

  /** One line `<file>: <place>: <what was expected>`. */
  add(file: string, place: string, expected: string): void {
    this.push(`${file}: ${place}: ${expected}`);
  }

  /** A file or folder that cannot be read, in the words of errors.ts. */
  addFileError(path: string, action: string, error: unknown): void {
    this.push(fileProblem(path, action, error));
  }

  /** A source shared by several patch sets is one problem, not one per set. */
  private push(line: string): void {
    if (!this.lines.includes(line)) this.lines.push(line);
  }

  addZodIssues(file: string, error: z.ZodError): void {
    for (const line of zodProblems(file, error)) this.push(line);
  }

  throwIfAny(): void {
    if (this.lines.length > 0) throw new UsageError(this.lines.join('\n'));
  }
}
