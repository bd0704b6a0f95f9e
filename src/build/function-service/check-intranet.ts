/**
 * The platform's inner-call hosts during `--check`: the harness sends every connection to
 * `{SERVICE_ID}-{target}.inner-call.dyc.ivolces.com` here (harness.ts), and this router answers
 * it as the platform would reach the target. The caller's `innerCall` is enforced as in dev
 * (runtime/intranet/inner-call.ts: HTTP only, the caller's own id, an enabled target); a
 * refused call is cut (the function sees a connection error) and the row says why. The target
 * is, in order: the sibling service's own built file (`<sibling>/dist/function-service/<path>.js`,
 * run under the same Node 14), the URL `CLOUDFN_INNER_CALL_<ID>` or `innerCallUrls` gives, else
 * a stand-in answer (200, `{}`) that counts as answered, with a note.
 */
import { existsSync } from 'node:fs';
import {
  createServer,
  type IncomingMessage,
  request as httpRequest,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, join, relative } from 'node:path';
import { classifyHost } from '../../../runtime/intranet/hosts.js';
import { innerCallRoute, type ServiceAddress } from '../../../runtime/intranet/inner-call.js';
import type { ImitatedAnswer, ImitatedRequest } from './imitation.js';

/** Where the function-service files of a service are, relative to its folder. */
export const SERVICE_OUTDIR = join('dist', 'function-service');

/** Runs one built file of a sibling service for one request. */
export type AnswerWithFile = (
  file: string,
  request: ImitatedRequest,
  serviceId: string,
) => Promise<ImitatedAnswer | undefined>;

/** What one file's calls met, for its row. */
export interface IntranetEvents {
  notes: string[];
  refusals: string[];
}

/** This service as the check sees it (src/platform/services/check-setup.ts reads it from the config). */
export interface CheckService {
  readonly id: string;
  /** The targets it may call. */
  readonly innerCall: readonly string[];
  /** Where `innerCall` is written, for messages. */
  readonly innerCallWhere: string;
}

/** The platform around the check: this service, its environment, the sibling services' files. */
export interface CheckPlatform {
  readonly service: CheckService;
  /** `SERVICE_ID`, `CLOUD_ENV`, the components' variables. */
  readonly env: Readonly<Record<string, string>>;
  /** Lines for the table's heading (a component with no server running). */
  readonly notes: readonly string[];
  /** The other services' function-service folders, by service id. */
  readonly siblings: ReadonlyMap<string, string>;
}

/**
 * The platform when nothing richer is given: the folder's name as `SERVICE_ID`, `CLOUD_ENV=DEV`,
 * no target enabled, no sibling.
 * @example defaultCheckPlatform('/src/game').env // { SERVICE_ID: 'game', CLOUD_ENV: 'DEV' }
 */
export function defaultCheckPlatform(root: string): CheckPlatform {
  const id = basename(root).toLowerCase().replaceAll('_', '-');
  return {
    service: { id, innerCall: [], innerCallWhere: 'innerCall in cloudfn.config.json' },
    env: { SERVICE_ID: id, CLOUD_ENV: 'DEV' },
    notes: [],
    siblings: new Map(),
  };
}

/** A stand-in for targets the check has no address for: innerCallRoute needs one to say yes. */
const NOWHERE: ServiceAddress = { host: '', port: 0 };

/** The router: an HTTP server on a loopback port. */
export class CheckIntranet {
  readonly #setting: CheckService;
  readonly #siblings: ReadonlyMap<string, string>;
  readonly #urls: Readonly<Record<string, string>>;
  readonly #answerWithFile: AnswerWithFile;
  readonly #root: string;
  #events: IntranetEvents = { notes: [], refusals: [] };
  #server: Server | undefined;

  constructor(options: {
    root: string;
    setting: CheckService;
    siblings: ReadonlyMap<string, string>;
    urls: Readonly<Record<string, string>>;
    answerWithFile: AnswerWithFile;
  }) {
    this.#root = options.root;
    this.#setting = options.setting;
    this.#siblings = options.siblings;
    this.#urls = options.urls;
    this.#answerWithFile = options.answerWithFile;
  }

  /** Listens on a free loopback port; resolves with `host:port` for the harness. */
  async listen(): Promise<string> {
    const server = createServer((req, res) => {
      this.#answer(req, res).catch((error: unknown) => {
        this.#events.notes.push(`the check's inner-call router failed: ${(error as Error).message}`);
        res.destroy();
      });
    });
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** What the calls since the last `take` met; starts a new list. */
  take(): IntranetEvents {
    const events = this.#events;
    this.#events = { notes: [], refusals: [] };
    return events;
  }

  close(): void {
    this.#server?.closeAllConnections();
    this.#server?.close();
  }

  async #answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const kind = classifyHost(host);
    const call = `${req.method} http://${host}${req.url}`;
    if (kind?.kind !== 'inner-call') {
      this.#events.refusals.push(`${call}: not an inner-call host`);
      res.destroy();
      return;
    }
    const self = this.#setting.id;
    const services = new Map<string, ServiceAddress>();
    for (const id of [...this.#setting.innerCall, ...this.#siblings.keys(), ...Object.keys(this.#urls)])
      services.set(id, NOWHERE);
    const route = innerCallRoute(
      {
        self,
        services,
        enabled: this.#setting.innerCall,
        enableWhere: this.#setting.innerCallWhere,
        startFix: (_from, to) =>
          `build it beside this one (${to}/${SERVICE_OUTDIR}) or give its address in CLOUDFN_INNER_CALL_${to.toUpperCase().replaceAll('-', '_')}`,
      },
      'http:',
      kind.pair,
    );
    if (route === undefined || 'refuse' in route) {
      this.#events.refusals.push(route === undefined ? `${call}: no service answers it` : route.refuse);
      res.destroy();
      return;
    }
    const to = kind.pair.slice(self.length + 1);
    const body = await readBody(req);
    const sibling = this.#siblings.get(to);
    if (sibling !== undefined) {
      const path = (req.url ?? '/').split('?')[0]!.replace(/^\/+|\/+$/g, '');
      const file = join(sibling, `${path}.js`);
      const shown = relative(this.#root, file);
      if (path === '' || !existsSync(file)) {
        this.#events.notes.push(`${call}: ${to} has no file ${shown}, answered 404 as the platform would`);
        send(res, 404, { 'content-type': 'application/json' }, JSON.stringify({ error: `no function at /${path}` }));
        return;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value;
      const answer = await this.#answerWithFile(
        file,
        {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          headers,
          bodyBase64: body.toString('base64'),
        },
        to,
      );
      if (answer === undefined) {
        this.#events.refusals.push(`${call}: ${shown} did not answer`);
        res.destroy();
        return;
      }
      this.#events.notes.push(`${call}: answered ${answer.status} by ${shown}`);
      const type = answer.returned === 'object' ? 'application/json' : 'text/plain; charset=utf-8';
      send(res, answer.status, { 'content-type': type, ...answer.headers }, answer.body);
      return;
    }
    const url = this.#urls[to];
    if (url !== undefined) {
      await forward(req, res, new URL(req.url ?? '/', url), body);
      this.#events.notes.push(`${call}: answered ${res.statusCode} by ${url} (innerCallUrls)`);
      return;
    }
    this.#events.notes.push(
      `${call}: answered by a stand-in (200, {}): "${to}" has no built files beside this service (${basename(this.#root)}/../${to}/${SERVICE_OUTDIR}) and no address (CLOUDFN_INNER_CALL_${to.toUpperCase().replaceAll('-', '_')}); on the platform ${to} answers`,
    );
    send(res, 200, { 'content-type': 'application/json' }, '{}');
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  const bytes = Buffer.from(body, 'utf8');
  res.writeHead(status, { ...headers, 'content-length': String(bytes.length), connection: 'close' });
  res.end(bytes);
}

/** Sends the call on to `url` with its method, headers (its Host too, as dev does) and body; its answer back as it came. */
function forward(req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = httpRequest(url, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.on('end', () => resolve());
      answer.on('error', reject);
    });
    out.on('error', (error) => {
      send(res, 502, { 'content-type': 'text/plain' }, `inner call to ${url.href} failed: ${error.message}`);
      resolve();
    });
    out.end(body);
  });
}
