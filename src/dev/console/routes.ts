/**
 * The console's HTTP side, under `/_cloudfn/` (no function can have that path: discovery skips
 * names starting with `_`): the page, its script and style, and a small JSON API whose answers
 * are typed by the protocol the page imports too (protocol.ts).
 *
 * | path | answer |
 * |---|---|
 * | `/_cloudfn/` | the page |
 * | `/_cloudfn/api/functions` | `{ functions, routes, logidHeader, triggerHeader, consoleTrigger, schedules, devUser }` |
 * | `/_cloudfn/api/events` | server-sent events: `log`, `request`, `functions` |
 * | `/_cloudfn/api/logs?logid=…` | `{ logid, records }`, the kept lines of one request |
 * | `/_cloudfn/api/logs?trace_id=…` | `{ traceId, records }`, the kept lines of every request of one trace |
 * | `/_cloudfn/api/database[?collection=…]` | the server SDK stand-in's collections (and one's documents) |
 * | `/_cloudfn/api/database/…` (POST, PUT, DELETE, export) | its writes (platform/sdk/database/console-api.ts) |
 * | `/_cloudfn/api/connections` | `{ connections }`, the WebSocket gateway's open connections |
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../../runtime/app.js';
import { CloudfnError } from '../../../runtime/errors.js';
import { errorBody } from '../../../runtime/request/response.js';
import { generateLogid } from '../../../runtime/log/logid.js';
import { createDevError } from '../errors.js';
import { PlatformError } from '../../platform/errors.js';
import { browseDatabase } from '../../platform/sdk/browse.js';
import { handleDatabaseWrite, isDatabaseWrite } from '../../platform/sdk/database/console-api.js';
import { readSdkOptions } from '../../platform/sdk/sdk-options.js';
import type { ConsoleAssets } from './assets.js';
import type { EventHub } from './event-hub.js';
import type {
  ConnectionsAnswer,
  ConsoleMeta,
  DatabaseView,
  DevUser,
  FunctionStatus,
  LogsAnswer,
  ScheduledFunction,
  SessionInfo,
} from './protocol.js';

/** Where the console lives. */
export const CONSOLE_PREFIX = '/_cloudfn';

/** What the console handler reads. */
export interface ConsoleContext {
  app: App;
  hub: EventHub;
  functions: () => FunctionStatus[];
  /** The functions with a `config.schedule` and their next firings. @default none */
  schedules?: () => ScheduledFunction[];
  assets: () => Promise<ConsoleAssets>;
  /** The header the page sends to mark its requests `console_debug`. */
  triggerHeader: string;
  /** The user the dev server acts as, for the page's "Call as" picker. */
  devUser: DevUser;
  /** The WebSocket gateway's open connections (docs/gateway.md). @default none */
  connections?: () => SessionInfo[];
}

/**
 * Whether a request URL belongs to the console.
 * @example isConsolePath('/_cloudfn/api/functions') // true
 */
export function isConsolePath(url: string): boolean {
  return (
    url.startsWith(CONSOLE_PREFIX) &&
    (url.length === CONSOLE_PREFIX.length || url[CONSOLE_PREFIX.length] === '/' || url[CONSOLE_PREFIX.length] === '?')
  );
}

function send(res: ServerResponse, status: number, type: string, body: string, head: boolean): void {
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(head ? undefined : body);
}

function sendJson(res: ServerResponse, value: unknown, head: boolean): void {
  send(res, 200, 'application/json; charset=utf-8', JSON.stringify(value), head);
}

function sendFailure(res: ServerResponse, error: unknown): void {
  const failure =
    error instanceof CloudfnError
      ? error
      : new CloudfnError('CLOUDFN_HANDLER_ERROR', 500, error instanceof Error ? error.message : String(error));
  if (failure.status === 405) res.setHeader('allow', 'GET, HEAD');
  send(
    res,
    failure.status,
    'application/json; charset=utf-8',
    errorBody(failure.code, failure.message, generateLogid()),
    false,
  );
}

/**
 * Creates the request listener of the console's paths.
 * @example if (isConsolePath(req.url)) consoleHandler(req, res)
 */
export function createConsoleHandler(ctx: ConsoleContext): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const head = req.method === 'HEAD';
    if (isDatabaseWrite(req.method ?? 'GET', url.pathname))
      return handleDatabaseWrite(req, res, readSdkOptions().dataDir);
    if (req.method !== 'GET' && !head)
      return sendFailure(res, createDevError('CLOUDFN_DEV_CONSOLE_METHOD', req.method ?? ''));
    const path = url.pathname;
    if (path === CONSOLE_PREFIX) {
      res.writeHead(308, { location: `${CONSOLE_PREFIX}/` });
      res.end();
      return;
    }
    const sub = path.slice(CONSOLE_PREFIX.length);
    switch (sub) {
      case '/':
      case '/index.html':
        return void ctx.assets().then(
          ({ html }) => send(res, 200, 'text/html; charset=utf-8', html, head),
          (error: unknown) => sendFailure(res, error),
        );
      case '/main.js':
        return void ctx.assets().then(
          ({ js }) => send(res, 200, 'text/javascript; charset=utf-8', js, head),
          (error: unknown) => sendFailure(res, error),
        );
      case '/style.css':
        return void ctx.assets().then(
          ({ css }) => send(res, 200, 'text/css; charset=utf-8', css, head),
          (error: unknown) => sendFailure(res, error),
        );
      case '/api/functions':
        return sendJson(
          res,
          {
            functions: ctx.functions(),
            routes: ctx.app.router.routes(),
            logidHeader: ctx.app.options.logidHeader,
            triggerHeader: ctx.triggerHeader,
            consoleTrigger: 'console_debug',
            schedules: ctx.schedules?.() ?? [],
            devUser: ctx.devUser,
          } satisfies ConsoleMeta,
          head,
        );
      case '/api/logs': {
        const traceId = url.searchParams.get('trace_id');
        if (traceId !== null)
          return sendJson(
            res,
            { traceId, records: traceId === '' ? [] : ctx.hub.logsForTrace(traceId) } satisfies LogsAnswer,
            head,
          );
        const logid = url.searchParams.get('logid') ?? '';
        return sendJson(res, { logid, records: logid === '' ? [] : ctx.hub.logsFor(logid) } satisfies LogsAnswer, head);
      }
      case '/api/database':
        try {
          const view: DatabaseView = browseDatabase(readSdkOptions().dataDir, url.searchParams.get('collection'));
          return sendJson(res, view, head);
        } catch (error) {
          // A bad collection name is the caller's to fix (400); an unreadable file stays a 500.
          const bad = error instanceof PlatformError && error.code === 'PLATFORM_SDK_BAD_ARGUMENT';
          return sendFailure(res, bad ? new CloudfnError(error.code, 400, error.message) : error);
        }
      case '/api/connections':
        return sendJson(res, { connections: ctx.connections?.() ?? [] } satisfies ConnectionsAnswer, head);
      case '/api/events':
        return ctx.hub.subscribe(req, res);
      default:
        return sendFailure(res, createDevError('CLOUDFN_DEV_CONSOLE_NOT_FOUND', path));
    }
  };
}
