// Reads what an agent CLI printed, as the descriptor's `output` section says. Pure: the runner
// hands it stdout and the exit code; classification of failures is in classify.ts.
import type { ConditionsSpec, StructuredOutputSpec } from '../formats/descriptor.js';

export interface ParsedOutput {
  /** The final result (json) or at least one well-formed record (jsonl) was found. */
  parsed: boolean;
  answered: boolean;
  text: string;
  sessionId?: string;
  /** Set when a record marks a failure. */
  error?: { message: string; status?: number };
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
}

type Rec = Record<string, unknown>;

export function valueAt(record: unknown, path: string): unknown {
  let current: unknown = record;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Rec)[key];
  }
  return current;
}

export function matches(record: unknown, conditions: ConditionsSpec | undefined): boolean {
  if (!conditions) return true;
  return Object.entries(conditions).every(([path, expected]) => {
    const actual = valueAt(record, path);
    return Array.isArray(expected) ? expected.includes(actual as never) : actual === expected;
  });
}

function asObject(value: unknown): Rec | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Rec) : undefined;
}

function parseLine(line: string): Rec | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    return asObject(JSON.parse(trimmed));
  } catch {
    return undefined;
  }
}

/** json: the whole stdout as one object, else its last line that is one. jsonl: every object line. */
export function recordsOf(stdout: string, format: 'json' | 'jsonl'): Rec[] {
  const lines = stdout.split('\n');
  if (format === 'jsonl') return lines.map(parseLine).filter((r): r is Rec => r !== undefined);
  const whole = parseLine(stdout.replace(/\n/g, ' '));
  if (whole) return [whole];
  for (let i = lines.length - 1; i >= 0; i--) {
    const record = parseLine(lines[i]!);
    if (record) return [record];
  }
  return [];
}

function sumAt(records: Rec[], paths: string | string[] | undefined): number | undefined {
  if (paths === undefined) return undefined;
  let total: number | undefined;
  for (const record of records) {
    for (const path of Array.isArray(paths) ? paths : [paths]) {
      const v = valueAt(record, path);
      if (typeof v === 'number' && Number.isFinite(v)) total = (total ?? 0) + v;
    }
  }
  return total;
}

function messageOf(record: Rec, paths: string | string[] | undefined): string {
  const parts = (Array.isArray(paths) ? paths : paths ? [paths] : [])
    .map((p) => valueAt(record, p))
    .filter((v) => v !== undefined && v !== null && v !== '')
    .map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  return parts.length > 0 ? parts.join(': ') : JSON.stringify(record);
}

export function parseStructured(stdout: string, spec: StructuredOutputSpec): ParsedOutput {
  const records = recordsOf(stdout, spec.format);
  const textParts = records
    .filter((r) => matches(r, spec.text.where))
    .map((r) => valueAt(r, spec.text.path))
    .filter((v): v is string => typeof v === 'string');

  let sessionId: string | undefined;
  if (spec.sessionId) {
    for (const r of records) {
      const v = valueAt(r, spec.sessionId.path);
      if (matches(r, spec.sessionId.where) && typeof v === 'string' && v !== '') sessionId = v;
    }
  }

  const finals = records.filter((r) => matches(r, spec.answered.where));
  const last = finals[finals.length - 1];
  const errorRecord = spec.error ? records.find((r) => matches(r, spec.error!.where)) : undefined;
  let error: ParsedOutput['error'];
  if (errorRecord && spec.error) {
    const status = spec.error.status ? valueAt(errorRecord, spec.error.status) : undefined;
    error = { message: messageOf(errorRecord, spec.error.message) };
    if (typeof status === 'number') error.status = status;
  }

  const usageRecords = spec.usage ? records.filter((r) => matches(r, spec.usage!.where)) : [];
  const result: ParsedOutput = {
    parsed: records.length > 0,
    answered: last !== undefined && matches(last, spec.answered.is) && error === undefined,
    text: textParts.join(''),
  };
  if (sessionId !== undefined) result.sessionId = sessionId;
  if (error) result.error = error;
  const input = sumAt(usageRecords, spec.usage?.inputTokens);
  const output = sumAt(usageRecords, spec.usage?.outputTokens);
  const cost = sumAt(usageRecords, spec.usage?.costUsd);
  if (input !== undefined) result.inputTokens = input;
  if (output !== undefined) result.outputTokens = output;
  if (cost !== undefined) result.costUsd = cost;
  return result;
}
