// What each verification check reports. A check either passes with the value the next check
// needs, or rejects with a reason written for the model: it becomes the follow-up turn verbatim.
export type CheckOutcome<T> = { ok: true; value: T } | { ok: false; reason: string };

export function pass<T>(value: T): CheckOutcome<T> {
  return { ok: true, value };
}

export function reject<T = never>(reason: string): CheckOutcome<T> {
  return { ok: false, reason };
}
