/**
 * Bytes on the wire for the protocol tests: a raw node:net client that records everything the
 * server sends, and a strict reader of those bytes built on llhttp (node's own parser, in
 * response mode, no lenient flags), so a response that is malformed, framed twice or followed by
 * stray bytes fails the test instead of being read generously.
 */
import { createRequire } from 'node:module';
import { connect, type Socket } from 'node:net';

/** One response as llhttp read it. */
export interface WireResponse {
  status: number;
  /** Header names lower-cased; a repeated header keeps its last value. */
  headers: Record<string, string>;
  /** Every header as sent, in order, for checks on repeated or conflicting framing headers. */
  rawHeaders: string[];
  body: Buffer;
}

/** What `readResponses` found: complete responses in order, and what went wrong after them. */
export interface WireReading {
  responses: WireResponse[];
  /** llhttp's error code (`HPE_...`) when the bytes after the last response do not parse. */
  error: string | undefined;
  /** A response had begun but its bytes stopped (a cut body, a head without end). */
  truncated: boolean;
}

interface LlhttpParser {
  initialize(type: number, resource: object): void;
  execute(data: Buffer): number | Error;
  finish(): number | Error | undefined;
  [key: number]: unknown;
}
interface LlhttpParserClass {
  new (): LlhttpParser;
  RESPONSE: number;
  kOnHeaders: number;
  kOnHeadersComplete: number;
  kOnBody: number;
  kOnMessageComplete: number;
}

// `_http_common` is node's own module around llhttp; there is no public export of the parser.
const { HTTPParser } = createRequire(import.meta.url)('_http_common') as { HTTPParser: LlhttpParserClass };

/**
 * Reads `bytes` strictly as a sequence of HTTP/1.1 responses.
 * @param bodiless indexes of responses that answer HEAD (they have no body whatever they declare)
 */
export function readResponses(bytes: Buffer, bodiless: ReadonlySet<number> = new Set()): WireReading {
  const responses: WireResponse[] = [];
  let current: WireResponse | undefined;
  let pending: string[] = [];
  let chunks: Buffer[] = [];
  const parser = new HTTPParser();
  parser.initialize(HTTPParser.RESPONSE, {});
  parser[HTTPParser.kOnHeaders] = (headers: string[]) => {
    pending = pending.concat(headers);
  };
  parser[HTTPParser.kOnHeadersComplete] = (
    _major: number,
    _minor: number,
    headers: string[] | undefined,
    _method: unknown,
    _url: unknown,
    status: number,
  ) => {
    const rawHeaders = headers ?? pending;
    pending = [];
    const named: Record<string, string> = {};
    for (let i = 0; i < rawHeaders.length; i += 2) named[rawHeaders[i]!.toLowerCase()] = rawHeaders[i + 1]!;
    current = { status, headers: named, rawHeaders, body: Buffer.alloc(0) };
    chunks = [];
    // 1 tells llhttp the message has no body (the answer to a HEAD).
    return bodiless.has(responses.length) ? 1 : 0;
  };
  parser[HTTPParser.kOnBody] = (chunk: Buffer) => {
    chunks.push(Buffer.from(chunk));
  };
  parser[HTTPParser.kOnMessageComplete] = () => {
    if (current === undefined) return;
    current.body = Buffer.concat(chunks);
    // An interim 1xx is not an answer: the final response follows.
    if (current.status >= 200) responses.push(current);
    current = undefined;
  };
  const result = parser.execute(bytes);
  let error = result instanceof Error ? ((result as Error & { code?: string }).code ?? result.message) : undefined;
  if (error === undefined) {
    const end = parser.finish();
    if (end instanceof Error) error = (end as Error & { code?: string }).code ?? end.message;
  }
  return { responses, error, truncated: current !== undefined };
}

/** What `talk` saw on one connection. */
export interface Conversation {
  bytes: Buffer;
  /** The server closed (or reset) the connection before `waitMs`. */
  closed: boolean;
  /** The connection ended with a reset (ECONNRESET) rather than a close. */
  reset: boolean;
}

/**
 * Opens a raw connection, runs `write` once connected, and collects every byte the server sends
 * until it closes the connection, `until` says enough, or `waitMs` passes.
 */
export function talk(
  port: number,
  write: (socket: Socket) => void,
  options: { waitMs?: number; until?: (bytes: Buffer) => boolean } = {},
): Promise<Conversation> {
  const { waitMs = 3000, until } = options;
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let reset = false;
    let settled = false;
    const settle = (closed: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ bytes: Buffer.concat(chunks), closed, reset });
    };
    const timer = setTimeout(() => settle(false), waitMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (until?.(Buffer.concat(chunks))) settle(false);
    });
    socket.on('close', () => settle(true));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET') reset = true;
    });
    socket.on('connect', () => write(socket));
  });
}

/** Resolves after `ms`. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
