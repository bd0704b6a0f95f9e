/**
 * A platform stand-in on a real socket (127.0.0.1, port 0): it records every request with its
 * raw bytes, verifies the request signature over those bytes with the sign library, and
 * answers with the media API's samples or whatever a test scripts, signed with a platform key.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemoryNonceStore, signResponse, verifyRequest, type VerifiedRequest } from '../../src/sign/index.js';
import { samples } from './samples.js';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  json: unknown;
  /** The verified signature, or the error verification threw, or undefined when unsigned. */
  verified: VerifiedRequest | Error | undefined;
}

export interface Reply {
  status?: number;
  /** An object is sent as JSON; a string as is. */
  body?: unknown;
  /** Sign the response. @default true for 2xx */
  sign?: boolean;
  /** Change the body after signing (a tampered response). */
  tamper?: boolean;
  headers?: Record<string, string>;
  /** Wait before answering (for timeouts). */
  delayMs?: number;
}

export type Responder = (req: Received) => Reply | Promise<Reply>;

export interface Keys {
  appPrivate: KeyObject;
  appPublic: KeyObject;
  appPrivatePem: string;
  platformPrivate: KeyObject;
  platformPublic: KeyObject;
  platformPublicPem: string;
}

/** Two fresh RSA-2048 pairs: the app's (signs requests) and the platform's (signs responses). */
export function makeKeys(): Keys {
  const app = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const platform = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    appPrivate: app.privateKey,
    appPublic: app.publicKey,
    appPrivatePem: app.privateKey.export({ format: 'pem', type: 'pkcs1' }) as string,
    platformPrivate: platform.privateKey,
    platformPublic: platform.publicKey,
    platformPublicPem: platform.publicKey.export({ format: 'pem', type: 'spki' }) as string,
  };
}

/** Answers each operation with its media API sample; token requests with a fresh token. */
export const sampleResponder: Responder = (req) => {
  if (req.path === '/oauth/client_token/') return { body: { data: { access_token: 'tok-1', expires_in: 7200 } } };
  const operation = req.path.replace('/api/cloud_voc/', '');
  const sample = samples[operation];
  return sample === undefined
    ? { status: 404, body: { err_no: 40001, err_msg: 'param error' }, sign: false }
    : { body: sample };
};

export class MediaServer {
  readonly received: Received[] = [];
  responder: Responder = sampleResponder;
  private readonly server: Server;
  private readonly keys: Keys;
  private readonly nonces = new MemoryNonceStore();
  url = '';

  constructor(keys: Keys) {
    this.keys = keys;
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void this.handle(req.method ?? '', req.url ?? '', req.headers, Buffer.concat(chunks)).then(
          (reply) => {
            if (res.destroyed) return;
            const status = reply.status ?? 200;
            const text =
              typeof reply.body === 'string' ? reply.body : reply.body === undefined ? '' : JSON.stringify(reply.body);
            const sign = reply.sign ?? (status >= 200 && status < 300);
            const signed = sign ? signResponse({ privateKey: this.keys.platformPrivate, body: text }) : {};
            // Tampering changes one digit after signing: still valid JSON, no longer the signed bytes.
            const sent = reply.tamper === true ? text.replace(/\d/, (d) => String((Number(d) + 1) % 10)) : text;
            res.writeHead(status, {
              'content-type': 'application/json',
              'x-platform-logid': 'hdr-logid-1',
              ...signed,
              ...reply.headers,
            });
            res.end(sent);
          },
          (error: unknown) => {
            res.writeHead(599).end(String(error));
          },
        );
      });
    });
  }

  private async handle(method: string, path: string, headers: IncomingHttpHeaders, raw: Buffer): Promise<Reply> {
    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch {
      json = undefined;
    }
    let verified: Received['verified'];
    const authorization = headers['platform-authorization'];
    if (typeof authorization === 'string') {
      try {
        verified = await verifyRequest({
          authorization,
          method,
          url: path,
          body: raw,
          publicKeys: { '7': this.keys.appPublic },
          nonceStore: this.nonces,
        });
      } catch (error) {
        verified = error as Error;
      }
    }
    const received: Received = { method, path, headers, raw, json, verified };
    this.received.push(received);
    const reply = await this.responder(received);
    if (reply.delayMs !== undefined) await new Promise((r) => setTimeout(r, reply.delayMs));
    return reply;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Requests to one operation's path. */
  to(operation: string): Received[] {
    return this.received.filter((r) => r.path === `/api/cloud_voc/${operation}`);
  }
}

/** A clock whose sleeps return at once and are recorded; concurrent sleeps overlap as in real time. */
export class FakeClock {
  time = 1_800_000_000_000;
  readonly sleeps: number[] = [];
  now = (): number => this.time;
  sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) throw signal.reason;
    const start = this.time;
    this.sleeps.push(ms);
    await Promise.resolve();
    this.time = Math.max(this.time, start + ms);
    if (signal?.aborted) throw signal.reason;
  };
}
