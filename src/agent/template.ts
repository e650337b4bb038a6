// Placeholder filling for descriptor argv and env. A placeholder with no value removes what
// holds it (an argument group, a JSON key or element) instead of passing an empty string, so an
// optional `["--model", "{model}"]` disappears when no model is set.
const PLACEHOLDER = /\{([a-z_]+)\}/g;

export type Values = Readonly<Record<string, string | number | undefined>>;

export class MissingValue extends Error {
  constructor(readonly placeholder: string) {
    super(`{${placeholder}} has no value`);
  }
}

export function placeholdersIn(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

/** Fills a string; throws MissingValue when one of its placeholders has none. */
export function fill(text: string, values: Values): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => {
    if (!(name in values)) return whole;
    const value = values[name];
    if (value === undefined) throw new MissingValue(name);
    return String(value);
  });
}

/** argv: plain strings must fill; a group (string[]) is dropped when any of its values is missing. */
export function fillArgs(args: readonly (string | readonly string[])[], values: Values): string[] {
  const out: string[] = [];
  for (const arg of args) {
    if (typeof arg === 'string') {
      out.push(fill(arg, values));
      continue;
    }
    try {
      out.push(...arg.map((a) => fill(a, values)));
    } catch (error) {
      if (!(error instanceof MissingValue)) throw error;
    }
  }
  return out;
}

const DROP = Symbol('drop');

/**
 * A JSON value with placeholders in keys and string leaves. A leaf that is exactly one
 * placeholder takes the value's own type (so a timeout stays a number).
 */
export function fillJson(value: unknown, values: Values): unknown {
  const filled = fillJsonInner(value, values);
  return filled === DROP ? null : filled;
}

function fillJsonInner(value: unknown, values: Values): unknown {
  if (typeof value === 'string') {
    const whole = /^\{([a-z_]+)\}$/.exec(value);
    if (whole && whole[1]! in values) {
      const v = values[whole[1]!];
      return v === undefined ? DROP : v;
    }
    try {
      return fill(value, values);
    } catch (error) {
      if (error instanceof MissingValue) return DROP;
      throw error;
    }
  }
  if (Array.isArray(value)) return value.map((v) => fillJsonInner(v, values)).filter((v) => v !== DROP);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      let k: string;
      try {
        k = fill(key, values);
      } catch (error) {
        if (error instanceof MissingValue) continue;
        throw error;
      }
      const filled = fillJsonInner(v, values);
      if (filled !== DROP) out[k] = filled;
    }
    return out;
  }
  return value;
}
