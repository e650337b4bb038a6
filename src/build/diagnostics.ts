// PLACEHOLDER: the compiler-diagnostics parser and error classifier land with the demo fixture work.
import type { Diagnostic, DotDiscopop, ErrorClass } from '../types.js';

export function parseDiagnostics(output: string, dp: DotDiscopop, workspaceRoot: string): Diagnostic[] {
  void output;
  void dp;
  void workspaceRoot;
  return [];
}

export function classifyError(message: string): ErrorClass {
  void message;
  return 'other';
}
