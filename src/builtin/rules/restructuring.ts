// Errors whose honest fix rewrites code rather than a directive: the built-in repairer declines
// them with a reason and leaves them to the agent. Deleting or weakening the directive to
// silence the compiler is never a repair.
const RESTRUCTURING: { pattern: RegExp; reason: string }[] = [
  {
    pattern: /for statement expected before '(while|do)'/,
    reason: "the loop is a 'while'/'do' loop; it must be rewritten as a canonical 'for' loop",
  },
  {
    pattern:
      /invalid controlling predicate|invalid increment expression|missing increment expression|invalid type for iteration variable|expected iteration declaration|refers to iteration variable|condition of OpenMP for loop must be|increment clause of OpenMP for loop|must be a relational comparison/,
    reason: 'the loop is not in OpenMP canonical form; it must be rewritten',
  },
  {
    pattern: /no match for 'operator-'/,
    reason: 'the loop iterates with iterators that have no random access; it must be rewritten',
  },
  {
    pattern:
      /break statement used with OpenMP for loop|invalid exit from OpenMP structured block|invalid branch to\/from OpenMP structured block|cannot return from OpenMP region|'break' statement cannot be used in OpenMP for loop/,
    reason: 'the loop body leaves the loop early (break/return/goto); it must be restructured',
  },
  {
    pattern:
      /user defined reduction not found|has invalid type for 'reduction|incompatible data types in reduction|is not valid for specified reduction operation|invalid operands to binary expression/,
    reason: 'the reduction variable has a type with no declared reduction; it needs a declare reduction or a rewrite',
  },
];

export function restructuringReason(message: string): string | null {
  return RESTRUCTURING.find((entry) => entry.pattern.test(message))?.reason ?? null;
}
