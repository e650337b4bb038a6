// Types of descriptor.mjs for the TypeScript tests.
export declare const SCRIPTED_AGENT: string;
export declare function scriptedDescriptor(o: {
  repliesFile: string;
  stateFile: string;
  sessions?: boolean;
  delayMs?: number;
}): Record<string, unknown>;
