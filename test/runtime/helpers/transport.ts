/**
 * How the case table reaches the runtime: over a real socket (a server from `serve` on port 0,
 * requests with node:http so nothing adds headers), and in process via `cloudfn/testing`.
 */
import { request as httpRequest } from 'node:http';
import { match } from 'path-to-regexp';
import { App } from '../../../runtime/app.js';
import { routePatterns } from '../../../runtime/request/router.js';
import { createHttpServer } from '../../../runtime/serve/http-server.js';
import { inject } from '../../../runtime/serve/inject.js';
import { Logger } from '../../../runtime/log/logger.js';
import type { LogRecord } from '../../../runtime/log/record.js';
import { createMemorySink } from '../../../runtime/log/sinks.js';
import { serve, type RunningServer } from '../../../runtime/serve/start.js';
import type { FunctionSpec } from '../../../runtime/types.js';
import type { CaseRequest } from './cases.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface Transport {
  name: string;
  send(request: CaseRequest): Promise<Answer>;
  logs(): LogRecord[];
  close(): Promise<void>;
}

/** Sends one request with node:http and collects the answer. */
export function sendHttp(base: string, request: CaseRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      base + request.path,
      { method: request.method ?? 'GET', headers: request.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
}

/** A real server on 127.0.0.1, port 0, logging into memory. */
export async function socketTransport(
  functions: FunctionSpec[],
  routes: Record<string, string>,
): Promise<Transport & { server: RunningServer }> {
  const sink = createMemorySink();
  const server = await serve(functions, {
    routes,
    flags: { port: '0', host: '127.0.0.1' },
    env: {},
    logger: new Logger(sink),
    handleSignals: false,
    keepServing: false,
  });
  return {
    name: 'socket',
    server,
    send: (request) => sendHttp(server.url, request),
    logs: () => sink.records,
    close: () => server.close(),
  };
}

/**
 * In process, no socket: the same app and node:http server, fed through the runtime's one
 * in-memory request (`inject`), which `cloudfn/testing`'s invoke uses too.
 */
export function inProcessTransport(functions: FunctionSpec[], routes: Record<string, string>): Transport {
  // Synchronous, as createApp is: path-to-regexp is provided rather than awaited.
  routePatterns.provide(match);
  const sink = createMemorySink();
  const app = new App({ functions, routes, logger: new Logger(sink) });
  const server = createHttpServer(app);
  return {
    name: 'in-process',
    logs: () => sink.records,
    close: async () => {
      server.close();
    },
    send: async (request) => {
      const answer = await inject(server, {
        method: request.method ?? 'GET',
        path: request.path,
        ...(request.headers === undefined ? {} : { headers: request.headers }),
        ...(request.body === undefined ? {} : { body: request.body }),
      });
      return { status: answer.status, headers: answer.headers, body: answer.body };
    },
  };
}
