// The few Node.js APIs the plugin and the tests use, declared here because Debian ships
// TypeScript without `@types/node`. Signatures as in Node 20's documentation, narrowed.
declare module 'fs' {
  export function existsSync(path: string): boolean;
  export function copyFileSync(source: string, destination: string): void;
  export function mkdirSync(path: string, options?: { recursive?: boolean }): string | undefined;
  export function readFileSync(path: string, encoding: 'utf8'): string;
  export function writeFileSync(path: string, data: string): void;
  export function readdirSync(path: string): string[];
  export function mkdtempSync(prefix: string): string;
  export function rmSync(path: string, options?: { recursive?: boolean; force?: boolean }): void;
}
declare module 'path' {
  export function join(...parts: string[]): string;
  export function relative(from: string, to: string): string;
  export function resolve(...parts: string[]): string;
  export function dirname(path: string): string;
  export function isAbsolute(path: string): boolean;
}
declare module 'os' {
  export function tmpdir(): string;
}
declare module 'node:test' {
  export function test(name: string, body: () => void | Promise<void>): Promise<void>;
}
declare module 'node:assert/strict' {
  function ok(value: unknown, message?: string): asserts value;
  namespace ok {
    function ok(value: unknown, message?: string): asserts value;
    function equal<T>(actual: unknown, expected: T, message?: string): asserts actual is T;
    function deepEqual<T>(actual: unknown, expected: T, message?: string): asserts actual is T;
    function match(value: string, pattern: RegExp, message?: string): void;
    function doesNotMatch(value: string, pattern: RegExp, message?: string): void;
    function throws(block: () => unknown, error: (error: unknown) => boolean, message?: string): void;
    function throws(block: () => unknown, error?: RegExp, message?: string): void;
    function rejects(block: Promise<unknown> | (() => Promise<unknown>), error: (error: any) => boolean, message?: string): Promise<void>;
    function rejects(block: Promise<unknown> | (() => Promise<unknown>), error?: RegExp, message?: string): Promise<void>;
  }
  export = ok;
}
declare function setTimeout(callback: () => void, milliseconds: number): unknown;
declare const __dirname: string;
declare const process: { env: Record<string, string | undefined> };
