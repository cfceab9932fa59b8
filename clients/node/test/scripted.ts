// A tiny HTTP server on 127.0.0.1 that answers each request from a script and records what came.
import { createServer, Server } from 'node:http';

/** An answer: status, headers and JSON body; `null` closes the connection with no answer (a reset). */
export type Answer = { status: number; headers?: Record<string, string>; body: unknown } | null;

export interface Recorded {
  method: string;
  url: string;
  body: string;
}

export class Scripted {
  readonly requests: Recorded[] = [];
  readonly #server: Server;
  #closed: Promise<void> | undefined;
  url = '';

  constructor(readonly answers: Answer[]) {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk) => chunks.push(chunk));
      request.on('end', () => {
        this.requests.push({ method: request.method ?? '', url: request.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
        const answer = this.answers.shift();
        if (!answer) {
          response.destroy();
          return;
        }
        response.statusCode = answer.status;
        for (const [name, value] of Object.entries(answer.headers ?? {})) response.setHeader(name, value);
        response.setHeader('Content-Type', 'application/json');
        response.end(JSON.stringify(answer.body));
      });
    });
  }

  start(): Promise<Scripted> {
    return new Promise((resolve) => {
      this.#server.listen(0, '127.0.0.1', () => {
        this.url = `http://127.0.0.1:${this.#server.address().port}`;
        resolve(this);
      });
    });
  }

  /** Closes the server and its connections; a second call does nothing. */
  close(): Promise<void> {
    this.#closed ??= new Promise((resolve) => {
      this.#server.closeAllConnections();
      this.#server.close(() => resolve());
    });
    return this.#closed;
  }
}

export function refusal(status: number, code: string, retryAfter?: number): Answer {
  return {
    status,
    headers: retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) },
    body: { error: { code, message: `${code}: fix it`, field: 'x' } },
  };
}
