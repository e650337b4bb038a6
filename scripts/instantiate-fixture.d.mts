// Types of instantiate-fixture.mjs for the TypeScript tests.
export declare const RECORDED_ROOT: string;
export declare function instantiateFixture(name: string, destDir?: string): { root: string; dotDir: string };
