// The Node 20 APIs the SDK and its tests use, declared here because Debian ships TypeScript without
// `@types/node`. Signatures as in Node 20's documentation, narrowed to what is called; test.sh lists them
// in DECLARATIONS.txt so a change shows in review.
declare class Buffer extends Uint8Array {
  static from(data: string, encoding?: 'utf8' | 'base64url' | 'hex'): Buffer;
  static from(data: Uint8Array): Buffer;
  static concat(list: readonly Uint8Array[]): Buffer;
  toString(encoding?: 'utf8' | 'base64url' | 'hex'): string;
  subarray(start?: number, end?: number): Buffer;
}
interface AbortSignal {
  readonly aborted: boolean;
}
declare const AbortSignal: { timeout(milliseconds: number): AbortSignal };
interface FetchHeaders {
  get(name: string): string | null;
}
interface FetchResponse {
  readonly status: number;
  readonly headers: FetchHeaders;
  text(): Promise<string>;
}
declare function fetch(
  url: string,
  init?: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal; redirect?: 'manual' },
): Promise<FetchResponse>;
declare function setTimeout(callback: () => void, milliseconds: number): unknown;
declare const process: { env: Record<string, string | undefined>; pid: number; exitCode?: number };
declare const console: { log(...values: unknown[]): void };
declare module 'node:crypto' {
  interface KeyObject {
    readonly asymmetricKeyType?: string;
    readonly asymmetricKeyDetails?: { namedCurve?: string };
    export(options: { type: 'spki'; format: 'der' }): Buffer;
  }
  interface Hmac {
    update(data: string | Uint8Array): Hmac;
    digest(encoding: 'hex'): string;
  }
  interface Hash {
    update(data: string | Uint8Array): Hash;
    digest(encoding: 'hex'): string;
  }
  function createPrivateKey(key: string | Buffer): KeyObject;
  function createPublicKey(key: KeyObject): KeyObject;
  function sign(algorithm: string, data: Uint8Array, key: { key: KeyObject; dsaEncoding: 'ieee-p1363' }): Buffer;
  function createHmac(algorithm: string, key: string | Uint8Array): Hmac;
  function createHash(algorithm: string): Hash;
  function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
  function randomUUID(): string;
}
declare module 'node:http' {
  interface IncomingMessage {
    readonly method?: string;
    readonly url?: string;
    readonly headers: Record<string, string | string[] | undefined>;
    on(event: 'data', listener: (chunk: Buffer) => void): this;
    on(event: 'end', listener: () => void): this;
  }
  interface ServerResponse {
    statusCode: number;
    setHeader(name: string, value: string): void;
    end(data?: string): void;
    destroy(): void;
  }
  interface Server {
    listen(port: number, host: string, callback: () => void): Server;
    address(): { port: number };
    close(callback?: () => void): void;
    closeAllConnections(): void;
  }
  function createServer(handler: (request: IncomingMessage, response: ServerResponse) => void): Server;
}
declare module 'node:fs' {
  function readFileSync(path: string, encoding: 'utf8'): string;
  function readFileSync(path: string): Buffer;
}
declare module 'node:test' {
  export function test(name: string, body: () => void | Promise<void>): Promise<void>;
  export function after(body: () => void | Promise<void>): void;
}
declare module 'node:assert/strict' {
  function ok(value: unknown, message?: string): asserts value;
  namespace ok {
    function equal<T>(actual: unknown, expected: T, message?: string): asserts actual is T;
    function notEqual(actual: unknown, expected: unknown, message?: string): void;
    function deepEqual<T>(actual: unknown, expected: T, message?: string): asserts actual is T;
    function match(value: string, pattern: RegExp, message?: string): void;
    function throws(block: () => unknown, error: (error: unknown) => boolean, message?: string): void;
    function rejects(
      block: Promise<unknown> | (() => Promise<unknown>),
      error: (error: unknown) => boolean,
      message?: string,
    ): Promise<void>;
  }
  export = ok;
}
