/**
 * An imitation of the platform's function service calling a built file, written from the
 * contract (docs/platform-contract.md#runtime-interface): params by the Content-Type table, a
 * `context` with every member of the service table whose setters and log methods record what
 * they were given, the return value as the body, and 500 when the function throws. `--check`
 * and the tests run it under Node 14, so it is plain code for that runtime (bundled by esbuild
 * with busboy for multipart bodies; the platform's console cannot send those, its HTTP entry can).
 */
import { parse as parseQueryString } from 'node:querystring';
import busboy from 'busboy';

/** A request to the imitated service. */
export interface ImitatedRequest {
  /** `GET` or `POST`. */
  method: string;
  /** The path with its query string, e.g. `/videos/list?page=0`. */
  url: string;
  headers?: Record<string, string>;
  /** The body as text. */
  body?: string;
  /** The body as base64, for bytes that are not text. */
  bodyBase64?: string;
  /** @default 'online' */
  trigger?: string;
}

/** One call the function made on `context`. */
export interface RecordedCall {
  member: string;
  args: unknown[];
}

/** What the imitated service answered, and what the function did on `context`. */
export interface ImitatedAnswer {
  status: number;
  /** Response headers as the setters left them (lower-case names). */
  headers: Record<string, string>;
  /** Every setter call (`set`, `remove`, `setCookie`, `clearCookie`, `status`) in order. */
  calls: RecordedCall[];
  /** Every log call: its method and the values given. */
  logs: { level: string; values: unknown[] }[];
  /** What the handler returned: `object`, `string`, `buffer`, `undefined`. */
  returned: string;
  /** The response body as the platform would send it: JSON for an object. */
  body: string;
  /** The thrown error's name, message and `code` (when it has a string one), when the function threw (answered 500). */
  thrown?: { name: string; message: string; code?: string };
}

function headerOf(headers: Record<string, string>, name: string): string | undefined {
  return headers[name];
}

function cookiesOf(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    cookies[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return cookies;
}

/** Multipart fields by name; a file part is an UploadFile, and a later file replaces an earlier one. */
function parseMultipart(type: string, body: Buffer): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, unknown> = {};
    const parser = busboy({ headers: { 'content-type': type } });
    parser.on('field', (name: string, value: string) => {
      fields[name] = value;
    });
    parser.on('file', (name: string, stream: NodeJS.ReadableStream, info: { filename: string; mimeType: string }) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const buffer = Buffer.concat(chunks);
        fields[name] = { name: info.filename, type: info.mimeType, size: buffer.length, buffer };
      });
    });
    parser.on('error', reject);
    parser.on('close', () => resolve(fields));
    parser.end(body);
  });
}

/** params by the contract's table. */
async function paramsOf(method: string, query: Record<string, unknown>, type: string, body: Buffer): Promise<unknown> {
  if (method === 'GET') return query;
  const mime = type.split(';')[0]!.trim().toLowerCase();
  if (mime === 'application/json') return JSON.parse(body.toString('utf8')) as unknown;
  if (mime === 'application/x-www-form-urlencoded') return { ...parseQueryString(body.toString('utf8')) };
  if (mime === 'text/plain') return body.toString('utf8');
  if (mime === 'multipart/form-data') return parseMultipart(type, body);
  return body;
}

/**
 * Calls `handler` as the function service would for `request`.
 * @example const answer = await invokeImitation(require('./dist/function-service/hello.js'), { method: 'GET', url: '/hello?name=Ada' })
 */
export async function invokeImitation(
  handler: (params: unknown, context: unknown) => unknown,
  request: ImitatedRequest,
): Promise<ImitatedAnswer> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
  const method = request.method.toUpperCase();
  const at = request.url.indexOf('?');
  const path = at === -1 ? request.url : request.url.slice(0, at);
  const query = { ...parseQueryString(at === -1 ? '' : request.url.slice(at + 1)) };
  const body =
    request.bodyBase64 !== undefined
      ? Buffer.from(request.bodyBase64, 'base64')
      : Buffer.from(request.body ?? '', 'utf8');
  const answer: ImitatedAnswer = { status: 200, headers: {}, calls: [], logs: [], returned: 'undefined', body: '' };
  const record =
    (member: string, effect: (...args: never[]) => void) =>
    (...args: unknown[]): void => {
      answer.calls.push({ member, args });
      (effect as (...args: unknown[]) => void)(...args);
    };
  const log =
    (level: string) =>
    (...values: unknown[]): void => {
      answer.logs.push({ level, values });
    };
  const context = {
    headers,
    httpMethod: method,
    path,
    url: request.url,
    query,
    cookies: cookiesOf(headerOf(headers, 'cookie')),
    trigger: request.trigger ?? 'online',
    set: record('set', (field: string, value: unknown) => {
      answer.headers[field.toLowerCase()] = String(value);
    }),
    remove: record('remove', (field: string) => {
      delete answer.headers[field.toLowerCase()];
    }),
    setCookie: record('setCookie', () => {}),
    clearCookie: record('clearCookie', () => {}),
    status: record('status', (code: number) => {
      answer.status = code;
    }),
    log: log('log'),
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
  };
  try {
    const params = await paramsOf(method, query, headerOf(headers, 'content-type') ?? '', body);
    const result = await handler(params, context);
    if (Buffer.isBuffer(result)) {
      answer.returned = 'buffer';
      answer.body = result.toString('utf8');
    } else if (typeof result === 'string') {
      answer.returned = 'string';
      answer.body = result;
    } else if (result === undefined || result === null) {
      answer.returned = 'undefined';
    } else {
      answer.returned = 'object';
      answer.body = JSON.stringify(result);
    }
  } catch (error) {
    answer.status = 500;
    const code = (error as { code?: unknown } | null)?.code;
    answer.thrown = {
      name: error instanceof Error ? error.name : typeof error,
      message: error instanceof Error ? error.message : String(error),
      ...(typeof code === 'string' ? { code } : {}),
    };
  }
  return answer;
}
