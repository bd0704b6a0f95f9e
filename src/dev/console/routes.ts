/**
 * The console's HTTP side, under `${CLOUDFN_PREFIX}/` (no function can have that path: discovery skips
 * names starting with `_`): the page, its script and style, and a small JSON API whose answers
 * are typed by the protocol the page imports too (protocol.ts), and the answers of the
 * extensions' panels (runtime/serve/extension.ts), each typed beside its extension.
 *
 * | path | answer |
 * |---|---|
 * | `${CLOUDFN_PREFIX}/` | the page |
 * | `${CLOUDFN_PREFIX}/api/functions` | `{ functions, routes, logidHeader, triggerHeader, consoleTrigger, devUser }` and each panel's `meta` (the timers' `schedules`) |
 * | `${CLOUDFN_PREFIX}/api/events` | server-sent events: `log`, `request`, `functions`, `typecheck` and the panels' (`ws`) |
 * | `${CLOUDFN_PREFIX}/api/logs?logid=…` | `{ logid, records }`, the kept lines of one request |
 * | `${CLOUDFN_PREFIX}/api/logs?trace_id=…` | `{ traceId, records }`, the kept lines of every request of one trace |
 * | `${CLOUDFN_PREFIX}/api/requests` | `{ requests }`, the last 200 requests answered, newest first (the page lists them on open) |
 * | `${CLOUDFN_PREFIX}/api/<name>` | a panel's answer: `database` (the SDK stand-in; its writes under `${CLOUDFN_PREFIX}/api/database/` are the SDK service's own hook), `connections` (the WebSocket gateway), `services` and `components` (the app's services; `services` is readable by the console of another local service, cors.ts) |
 */
import { CLOUDFN_PREFIX } from '../../../runtime/options.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../../runtime/app.js';
import { createDevError } from '../errors.js';
import type { ExtensionPanel } from '../../local-service.js';
import { sendJson, sendJsonError } from '../../../runtime/serve/hook-io.js';
import type { DevUser } from '../../../runtime/shapes.js';
import type { ConsoleAssets } from './assets.js';
import { crossOriginHeaders } from './cors.js';
import type { EventHub } from './event-hub.js';
import type { ConsoleMeta, FunctionStatus, LogsAnswer, RequestsAnswer } from './protocol.js';

/** Where the console lives. */
export const CONSOLE_PREFIX = CLOUDFN_PREFIX;

/** What the console handler reads. */
export interface ConsoleContext {
  app: App;
  hub: EventHub;
  functions: () => FunctionStatus[];
  /** The extensions' panels: their answers under `/api/` and what they add to `/api/functions`. @default none */
  panels?: readonly ExtensionPanel[];
  assets: () => Promise<ConsoleAssets>;
  /** The header the page sends to mark its requests `console_debug`. */
  triggerHeader: string;
  /** The user the dev server acts as, for the page's "Call as" picker. */
  devUser: DevUser;
}

/**
 * Whether a request URL is under the prefix (the console's, and every extension's route).
 * @example isConsolePath(`${CLOUDFN_PREFIX}/api/functions`) // true
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

function sendFailure(res: ServerResponse, error: unknown): void {
  sendJsonError(res, error, { allow: 'GET, HEAD' });
}

/** A panel's answer under `/api/<name>`, or undefined when no panel has that name. */
function panelAnswer(
  panels: readonly ExtensionPanel[],
  name: string,
): ((query: URLSearchParams) => unknown) | undefined {
  for (const panel of panels) if (panel.api !== undefined && Object.hasOwn(panel.api, name)) return panel.api[name];
  return undefined;
}

/**
 * Creates the request listener of the console's paths.
 * @example const routes = { '': createConsoleHandler(ctx) }
 */
export function createConsoleHandler(ctx: ConsoleContext): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const head = req.method === 'HEAD';
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
          200,
          {
            functions: ctx.functions(),
            routes: ctx.app.router.routes(),
            logidHeader: ctx.app.options.logidHeader,
            triggerHeader: ctx.triggerHeader,
            consoleTrigger: 'console_debug',
            devUser: ctx.devUser,
            ...Object.assign({}, ...(ctx.panels ?? []).map((panel) => panel.meta?.() ?? {})),
          } satisfies ConsoleMeta,
          { head },
        );
      case '/api/logs': {
        const traceId = url.searchParams.get('trace_id');
        if (traceId !== null)
          return sendJson(
            res,
            200,
            { traceId, records: traceId === '' ? [] : ctx.hub.logsForTrace(traceId) } satisfies LogsAnswer,
            { head },
          );
        const logid = url.searchParams.get('logid') ?? '';
        return sendJson(res, 200, { logid, records: logid === '' ? [] : ctx.hub.logsFor(logid) } satisfies LogsAnswer, {
          head,
        });
      }
      case '/api/requests':
        return sendJson(res, 200, { requests: ctx.hub.recentRequests() } satisfies RequestsAnswer, { head });
      case '/api/events':
        return ctx.hub.subscribe(req, res);
      default: {
        const name = sub.slice('/api/'.length);
        const answer = sub.startsWith('/api/') ? panelAnswer(ctx.panels ?? [], name) : undefined;
        if (answer === undefined) return sendFailure(res, createDevError('CLOUDFN_DEV_CONSOLE_NOT_FOUND', path));
        try {
          return sendJson(res, 200, answer(url.searchParams), {
            head,
            headers: crossOriginHeaders(name, req.headers.origin),
          });
        } catch (error) {
          return sendFailure(res, error);
        }
      }
    }
  };
}
