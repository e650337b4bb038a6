// Types of docs-screenshot.mjs for the TypeScript tests.
import type { Page } from 'playwright-core';
export declare const CHROMIUM_PATH: string;
export declare const CHROMIUM_ARGS: string[];
export declare const SCREENSHOT_VIEWPORT: { width: number; height: number };
export declare const DEMO_RUN_ARGS: string[];
export declare function openPage(url: string): Promise<{ page: Page; urls: string[]; close(): Promise<void> }>;
