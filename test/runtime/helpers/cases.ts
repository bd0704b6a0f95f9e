/**
 * One table of cases for the runtime: every row of the params table, the service members,
 * the response mapping and the error answers. `request/handle.test.ts` runs each case over a real
 * socket and in process (through `cloudfn/testing`), and both must give the same answer.
 */
import { Readable } from 'node:stream';
import { HttpError } from '../../../runtime/errors.js';
import type { FunctionSpec } from '../../../runtime/types.js';
import type { Service } from '../../../runtime/types.js';

export interface CaseRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface CaseExpect {
  status: number;
  json?: unknown;
  text?: string;
  /** Header values that must be present (lower-case names); `null` means absent. */
  headers?: Record<string, string | RegExp | null>;
  /** The error code of an error body. */
  code?: string;
  /** A substring of the error message. */
  message?: string;
  /** Set-Cookie lines, in order. */
  cookies?: (string | RegExp)[];
}

export interface Case {
  name: string;
  request: CaseRequest;
  expect: CaseExpect;
}

/** Describes params so JSON can carry their shape: Buffers as hex, files as their fields. */
function describe(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return { buffer: value.toString('hex') };
  if (Array.isArray(value)) return value.map(describe);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = describe(item);
    // 'null': no Object.prototype on the chain, so no key can reach a shared prototype.
    return { proto: value instanceof Object ? 'object' : 'null', ...out };
  }
  return value;
}

const echo = (params: unknown, service: Service) => ({
  params: describe(params),
  type: Buffer.isBuffer(params) ? 'buffer' : typeof params,
  sameAsQuery: params === service.query,
});

const inspect = (_params: unknown, service: Service) => ({
  headers: { accept: service.headers['accept'], custom: service.headers['x-custom'] },
  httpMethod: service.httpMethod,
  path: service.path,
  url: service.url,
  query: { ...service.query },
  cookies: { ...service.cookies },
  trigger: service.trigger,
  functionName: service.functionName,
  rawBody: service.rawBody.toString('hex'),
  logidMatches: service.logid === service.headers['x-platform-logid'],
  routeParams: service.routeParams,
});

/** The functions the cases call. */
export const functions: FunctionSpec[] = [
  { name: 'echo', handler: echo },
  { name: 'inspect', handler: inspect },
  { name: 'videos/get', handler: (_p: unknown, s: Service) => ({ vid: s.routeParams['vid'], fn: s.functionName }) },
  { name: 'videos', handler: (_p: unknown, s: Service) => ({ fn: s.functionName, path: s.path }) },
  { name: 'index', handler: () => 'root' },
  {
    name: 'respond',
    handler: (params: Record<string, string>, service: Service) => {
      switch (params['as']) {
        case 'none':
          return undefined;
        case 'null':
          return null;
        case 'text':
          return 'héllo';
        case 'buffer':
          return Buffer.from([1, 2, 3]);
        case 'bytes':
          return new Uint8Array([4, 5]);
        case 'stream':
          return Readable.from([Buffer.from('a'), Buffer.from('b')]);
        case 'typed':
          service.set('Content-Type', 'text/csv');
          return 'a,b';
        case 'status':
          service.status(201);
          return { created: true };
        case 'headers':
          service
            .set('X-One', '1')
            .set('x-two', 2)
            .set('X-List', ['a', 'b'])
            .set('X-Gone', 'x')
            .remove('x-gone')
            .remove('x-never');
          return {};
        case 'cookies':
          service.setCookie('sid', 'abc', { httpOnly: true, path: '/', sameSite: 'lax', maxAge: 60 });
          service.clearCookie('old');
          return {};
        default:
          return { as: params['as'] };
      }
    },
  },
  {
    name: 'fail',
    handler: (params: Record<string, string>, service: Service) => {
      switch (params['how']) {
        case 'throw':
          throw new Error('database password is hunter2');
        case 'reject':
          return Promise.reject(new Error('secret rejection'));
        case 'http':
          service.set('WWW-Authenticate', 'Bearer');
          throw new HttpError(401, 'token expired: sign in again');
        case 'crlf':
          service.set('X-Bad', 'a\r\nInjected: 1');
          return {};
        case 'badname':
          service.set('bad name', 'x');
          return {};
        case 'status':
          service.status(700);
          return {};
        case 'circular': {
          const loop: Record<string, unknown> = {};
          loop['self'] = loop;
          return loop;
        }
        default:
          return {};
      }
    },
  },
  {
    name: 'small',
    handler: (params: unknown) => ({ got: Buffer.isBuffer(params) ? params.length : params }),
    config: { maxBodySize: 16 },
  },
  {
    name: 'slow',
    handler: (_p: unknown, service: Service) =>
      new Promise((resolve) => {
        service.signal.addEventListener('abort', () => resolve({ late: true }));
      }),
    config: { timeout: 100 },
  },
];

export const routes = { '/videos/:vid': 'videos/get' };

const form = (parts: string[], boundary = 'XyZ'): string =>
  parts.map((p) => `--${boundary}\r\n${p}\r\n`).join('') + `--${boundary}--\r\n`;
const JSON_CT = { 'content-type': 'application/json' };
const MP = { 'content-type': 'multipart/form-data; boundary=XyZ' };

export const cases: Case[] = [
  // params by invocation form (docs/platform-contract.md#params)
  {
    name: 'GET: the query string as a null-prototype object; a repeated key gives an array; params is service.query',
    request: { path: '/echo?a=1&b=x%20y&b=z&c=' },
    expect: {
      status: 200,
      json: { params: { proto: 'null', a: '1', b: ['x y', 'z'], c: '' }, type: 'object', sameAsQuery: true },
    },
  },
  {
    name: 'GET: no query gives an empty object',
    request: { path: '/echo' },
    expect: { status: 200, json: { params: { proto: 'null' }, type: 'object', sameAsQuery: true } },
  },
  {
    name: 'GET: __proto__ and constructor keys are dropped',
    request: { path: '/echo?__proto__=x&constructor=y&ok=1' },
    expect: { status: 200, json: { params: { proto: 'null', ok: '1' }, type: 'object', sameAsQuery: true } },
  },
  {
    name: 'GET: a bad escape in the query is a 400',
    request: { path: '/echo?a=%E0%A4%A' },
    expect: { status: 400, code: 'CLOUDFN_BAD_QUERY', message: '%E0%A4%A' },
  },
  {
    name: 'POST application/json: the parsed JSON',
    request: { method: 'POST', path: '/echo', headers: JSON_CT, body: '{"a":[1,{"b":null}],"s":"中文"}' },
    expect: {
      status: 200,
      json: {
        params: { proto: 'object', a: [1, { proto: 'object', b: null }], s: '中文' },
        type: 'object',
        sameAsQuery: false,
      },
    },
  },
  {
    name: 'POST JSON with a charset and a +json type',
    request: {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/vnd.api+json; charset=UTF-8' },
      body: '[1,2]',
    },
    expect: { status: 200, json: { params: [1, 2], type: 'object', sameAsQuery: false } },
  },
  {
    name: 'POST JSON, empty body',
    request: { method: 'POST', path: '/echo', headers: JSON_CT, body: '' },
    expect: { status: 200, json: { params: { proto: 'object' }, type: 'object', sameAsQuery: false } },
  },
  {
    name: 'POST JSON, malformed: 400 saying where',
    request: { method: 'POST', path: '/echo', headers: JSON_CT, body: '{"a":1,}' },
    expect: { status: 400, code: 'CLOUDFN_BAD_JSON', message: 'line 1' },
  },
  {
    name: 'POST JSON with __proto__: 400',
    request: { method: 'POST', path: '/echo', headers: JSON_CT, body: '{"x":{"__proto__":{"admin":true}}}' },
    expect: { status: 400, code: 'CLOUDFN_POISONED_JSON', message: '__proto__' },
  },
  {
    name: 'POST urlencoded: parsed as a query string',
    request: {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1&a=2&b=x+y&c=%E4%B8%AD',
    },
    expect: {
      status: 200,
      json: { params: { proto: 'null', a: ['1', '2'], b: 'x y', c: '中' }, type: 'object', sameAsQuery: false },
    },
  },
  {
    name: 'POST urlencoded, empty body',
    request: {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    },
    expect: { status: 200, json: { params: { proto: 'null' }, type: 'object', sameAsQuery: false } },
  },
  {
    name: 'POST urlencoded, bad escape: 400',
    request: {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=%zz',
    },
    expect: { status: 400, code: 'CLOUDFN_BAD_FORM' },
  },
  {
    name: 'POST text/plain: the text',
    request: { method: 'POST', path: '/echo', headers: { 'content-type': 'text/plain' }, body: 'hello 世界\n' },
    expect: { status: 200, json: { params: 'hello 世界\n', type: 'string', sameAsQuery: false } },
  },
  {
    name: 'POST text/plain with a latin1 charset',
    request: {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'text/plain; charset=iso-8859-1' },
      body: Buffer.from([0x63, 0x61, 0x66, 0xe9]),
    },
    expect: { status: 200, json: { params: 'café', type: 'string', sameAsQuery: false } },
  },
  {
    name: 'POST text/plain, empty body',
    request: { method: 'POST', path: '/echo', headers: { 'content-type': 'text/plain' }, body: '' },
    expect: { status: 200, json: { params: '', type: 'string', sameAsQuery: false } },
  },
  {
    name: 'POST text with an unknown charset: 415',
    request: { method: 'POST', path: '/echo', headers: { 'content-type': 'text/plain; charset=klingon' }, body: 'x' },
    expect: { status: 415, code: 'CLOUDFN_BAD_CHARSET', message: 'klingon' },
  },
  {
    name: 'POST multipart: fields and files; a repeated file key keeps the later file',
    request: {
      method: 'POST',
      path: '/echo',
      headers: MP,
      body: form([
        'Content-Disposition: form-data; name="title"\r\n\r\nmy video',
        'Content-Disposition: form-data; name="f"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nfirst',
        'Content-Disposition: form-data; name="f"; filename="b.bin"\r\nContent-Type: application/octet-stream\r\n\r\nsecond',
      ]),
    },
    expect: {
      status: 200,
      json: {
        params: {
          proto: 'null',
          title: 'my video',
          f: {
            proto: 'object',
            name: 'b.bin',
            type: 'application/octet-stream',
            size: 6,
            buffer: { buffer: Buffer.from('second').toString('hex') },
          },
        },
        type: 'object',
        sameAsQuery: false,
      },
    },
  },
  {
    name: 'POST multipart: a repeated plain field gives an array',
    request: {
      method: 'POST',
      path: '/echo',
      headers: MP,
      body: form([
        'Content-Disposition: form-data; name="tag"\r\n\r\na',
        'Content-Disposition: form-data; name="tag"\r\n\r\nb',
      ]),
    },
    expect: { status: 200, json: { params: { proto: 'null', tag: ['a', 'b'] }, type: 'object', sameAsQuery: false } },
  },
  {
    name: 'POST multipart without a boundary: 400',
    request: { method: 'POST', path: '/echo', headers: { 'content-type': 'multipart/form-data' }, body: 'x' },
    expect: { status: 400, code: 'CLOUDFN_BAD_MULTIPART' },
  },
  {
    name: 'POST multipart, truncated: 400',
    request: {
      method: 'POST',
      path: '/echo',
      headers: MP,
      body: '--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\nunfinished',
    },
    expect: { status: 400, code: 'CLOUDFN_BAD_MULTIPART' },
  },
  {
    name: 'POST application/octet-stream: a Buffer',
    request: {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.from([0, 255, 16]),
    },
    expect: { status: 200, json: { params: { buffer: '00ff10' }, type: 'buffer', sameAsQuery: false } },
  },
  {
    name: 'POST without a content type: a Buffer',
    request: { method: 'POST', path: '/echo', body: 'raw' },
    expect: {
      status: 200,
      json: { params: { buffer: Buffer.from('raw').toString('hex') }, type: 'buffer', sameAsQuery: false },
    },
  },
  {
    name: 'POST binary, empty body: an empty Buffer',
    request: { method: 'POST', path: '/echo', headers: { 'content-type': 'image/png' }, body: '' },
    expect: { status: 200, json: { params: { buffer: '' }, type: 'buffer', sameAsQuery: false } },
  },
  {
    name: 'POST with Content-Encoding gzip: 415',
    request: { method: 'POST', path: '/echo', headers: { ...JSON_CT, 'content-encoding': 'gzip' }, body: '{}' },
    expect: { status: 415, code: 'CLOUDFN_UNSUPPORTED_ENCODING', message: 'gzip' },
  },
  {
    name: "POST over the function's maxBodySize: 413",
    request: { method: 'POST', path: '/small', headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(17) },
    expect: { status: 413, code: 'CLOUDFN_BODY_TOO_LARGE', message: '16 bytes' },
  },
  {
    name: "POST at the function's maxBodySize: served",
    request: { method: 'POST', path: '/small', headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(16) },
    expect: { status: 200, json: { got: 'x'.repeat(16) } },
  },

  // the service members
  {
    name: 'service: headers, method, path, url, query of a POST, cookies, trigger, rawBody, logid',
    request: {
      method: 'POST',
      path: '/inspect/more?q=1&q=2',
      headers: {
        Accept: 'text/html',
        'X-Custom': 'yes',
        cookie: 'a=1; b=x%20y; __proto__=evil',
        'content-type': 'text/plain',
        'x-platform-logid': 'upstream-123',
      },
      body: 'bytes',
    },
    expect: {
      status: 200,
      json: {
        headers: { accept: 'text/html', custom: 'yes' },
        httpMethod: 'POST',
        path: '/inspect/more',
        url: '/inspect/more?q=1&q=2',
        query: { q: ['1', '2'] },
        cookies: { a: '1', b: 'x y' },
        trigger: 'online',
        functionName: 'inspect',
        rawBody: Buffer.from('bytes').toString('hex'),
        logidMatches: true,
        routeParams: {},
      },
      headers: { 'x-platform-logid': 'upstream-123' },
    },
  },
  {
    name: 'routing: a custom route fills routeParams',
    request: { path: '/videos/v%20123' },
    expect: { status: 200, json: { vid: 'v 123', fn: 'videos/get' } },
  },
  {
    name: 'routing: the longest function name that prefixes the path',
    request: { path: '/videos/a/b' },
    expect: { status: 200, json: { fn: 'videos', path: '/videos/a/b' } },
  },
  { name: 'routing: / is the index function', request: { path: '/' }, expect: { status: 200, text: 'root' } },
  {
    name: 'routing: an unknown function is a 404',
    request: { path: '/nope' },
    expect: { status: 404, code: 'CLOUDFN_NOT_FOUND', message: '/nope' },
  },
  {
    name: 'routing: a bad escape in the path is a 400',
    request: { path: '/echo%zz' },
    expect: { status: 400, code: 'CLOUDFN_BAD_PATH' },
  },
  {
    name: 'methods other than GET and POST: 405 with Allow',
    request: { method: 'PUT', path: '/echo', body: 'x' },
    expect: { status: 405, code: 'CLOUDFN_METHOD_NOT_ALLOWED', headers: { allow: 'GET, POST' } },
  },
  {
    name: 'DELETE: 405',
    request: { method: 'DELETE', path: '/echo' },
    expect: { status: 405, code: 'CLOUDFN_METHOD_NOT_ALLOWED' },
  },

  // response mapping
  {
    name: 'undefined: empty body, 200',
    request: { path: '/respond?as=none' },
    expect: { status: 200, text: '', headers: { 'content-length': '0', 'content-type': null } },
  },
  { name: 'null: empty body', request: { path: '/respond?as=null' }, expect: { status: 200, text: '' } },
  {
    name: 'a string: text/plain; charset=utf-8',
    request: { path: '/respond?as=text' },
    expect: {
      status: 200,
      text: 'héllo',
      headers: { 'content-type': 'text/plain; charset=utf-8', 'content-length': '6' },
    },
  },
  {
    name: 'a Buffer: application/octet-stream',
    request: { path: '/respond?as=buffer' },
    expect: { status: 200, text: '\x01\x02\x03', headers: { 'content-type': 'application/octet-stream' } },
  },
  {
    name: 'a Uint8Array: application/octet-stream',
    request: { path: '/respond?as=bytes' },
    expect: { status: 200, text: '\x04\x05', headers: { 'content-type': 'application/octet-stream' } },
  },
  { name: 'a readable stream: streamed', request: { path: '/respond?as=stream' }, expect: { status: 200, text: 'ab' } },
  {
    name: 'an object: JSON',
    request: { path: '/respond?as=x' },
    expect: { status: 200, json: { as: 'x' }, headers: { 'content-type': 'application/json; charset=utf-8' } },
  },
  {
    name: 'a content-type set with service.set wins',
    request: { path: '/respond?as=typed' },
    expect: { status: 200, text: 'a,b', headers: { 'content-type': 'text/csv' } },
  },
  {
    name: 'service.status sets the status',
    request: { path: '/respond?as=status' },
    expect: { status: 201, json: { created: true } },
  },
  {
    name: 'service.set and remove',
    request: { path: '/respond?as=headers' },
    expect: { status: 200, headers: { 'x-one': '1', 'x-two': '2', 'x-list': 'a, b', 'x-gone': null } },
  },
  {
    name: 'service.setCookie and clearCookie',
    request: { path: '/respond?as=cookies' },
    expect: {
      status: 200,
      cookies: [
        'sid=abc; Max-Age=60; Path=/; HttpOnly; SameSite=Lax',
        /^old=; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT$/,
      ],
    },
  },

  // errors
  {
    name: 'a thrown error: 500 without its message',
    request: { path: '/fail?how=throw' },
    expect: { status: 500, code: 'CLOUDFN_HANDLER_ERROR', message: 'look up this logid' },
  },
  {
    name: 'a rejected promise: 500',
    request: { path: '/fail?how=reject' },
    expect: { status: 500, code: 'CLOUDFN_HANDLER_ERROR' },
  },
  {
    name: 'HttpError: its status, message and headers',
    request: { path: '/fail?how=http' },
    expect: {
      status: 401,
      code: 'CLOUDFN_HTTP_ERROR',
      message: 'token expired',
      headers: { 'www-authenticate': 'Bearer' },
    },
  },
  {
    name: 'service.set with CRLF throws inside the handler: 500',
    request: { path: '/fail?how=crlf' },
    expect: { status: 500, code: 'CLOUDFN_HANDLER_ERROR', headers: { 'x-bad': null, injected: null } },
  },
  {
    name: 'service.set with a bad name: 500',
    request: { path: '/fail?how=badname' },
    expect: { status: 500, code: 'CLOUDFN_HANDLER_ERROR' },
  },
  {
    name: 'service.status(700): 500',
    request: { path: '/fail?how=status' },
    expect: { status: 500, code: 'CLOUDFN_HANDLER_ERROR' },
  },
  {
    name: 'a value JSON cannot carry: 500',
    request: { path: '/fail?how=circular' },
    expect: { status: 500, code: 'CLOUDFN_HANDLER_ERROR' },
  },
  {
    name: 'a timeout: 504, and service.signal aborts',
    request: { path: '/slow' },
    expect: { status: 504, code: 'CLOUDFN_TIMEOUT', message: 'timed out after 100 ms' },
  },
  {
    name: 'an unsafe incoming logid is replaced',
    request: { path: '/respond?as=x', headers: { 'x-platform-logid': 'bad id<script>' } },
    expect: { status: 200, headers: { 'x-platform-logid': /^[0-9a-f]{24}$/ } },
  },
];
