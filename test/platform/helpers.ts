/**
 * Shared fixtures of the platform tests: temporary folders, a real MP4 made by ffmpeg, a
 * local file server for upload sources, a callback receiver and an emulator on port 0.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPlatform, type Platform, type PlatformOptions } from '../../src/platform/index.js';

/** True when ffmpeg and ffprobe are installed (CI installs them). */
export const hasFfmpeg = (() => {
  try {
    execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' });
    execFileSync('ffprobe', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A temporary folder and its removal. */
export function tempDir(prefix = 'cloudfn-platform-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Makes a 2-second 320x240 H264 + AAC MP4 with ffmpeg (about 0.2 s of work).
 * @example const mp4 = makeMp4(dir)
 */
export function makeMp4(dir: string, name = 'clip.mp4', seconds = 2): string {
  const out = join(dir, name);
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=320x240:rate=25:duration=${seconds}`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${seconds}`,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-shortest',
    out,
  ]);
  return out;
}

/** Serves the files of `dir` at `/<name>` on 127.0.0.1, and counts requests. */
export async function fileServer(
  dir: string,
): Promise<{ url: string; requests: string[]; close: () => Promise<void> }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const file = join(dir, decodeURIComponent((req.url ?? '/').slice(1)));
    if (!existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  const url = await listen(server);
  return { url, requests, close: () => closeServer(server) };
}

/** One callback as received, with the raw body for verification. */
export interface ReceivedCallback {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A callback receiver; `fail` first answers that many requests with 500. */
export async function callbackReceiver(
  fail = 0,
): Promise<{ url: string; received: ReceivedCallback[]; close: () => Promise<void> }> {
  const received: ReceivedCallback[] = [];
  let failures = fail;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (failures > 0) {
        failures--;
        res.writeHead(500).end();
      } else {
        res.writeHead(204).end();
      }
    });
  });
  const url = await listen(server);
  return { url: `${url}/callback`, received, close: () => closeServer(server) };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Log lines of an emulator, collected instead of printed. */
export type LogLines = string[];

/**
 * Starts an emulator on port 0 with fast delays and collected logs.
 * @example const { platform, log } = await startPlatform(dir, { ffmpeg: false })
 */
export async function startPlatform(
  dataDir: string,
  options: PlatformOptions = {},
): Promise<{ platform: Platform; log: LogLines }> {
  const log: LogLines = [];
  const platform = await createPlatform({
    port: 0,
    dataDir,
    jobDelayMs: 0,
    transcodeDelayMs: 0,
    reviewDelayMs: 60_000,
    transcodePreset: 'ultrafast',
    log: (line) => log.push(line),
    ...options,
  });
  return { platform, log };
}

/** POSTs JSON to the emulator and returns status, headers, raw text and parsed body. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = {};
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** A token from the emulator for `clientKey`. */
export async function tokenFor(baseUrl: string, clientKey = 'tt-test-app', clientSecret = 'secret'): Promise<string> {
  const { json } = await post(`${baseUrl}/oauth/client_token/`, {
    client_key: clientKey,
    client_secret: clientSecret,
    grant_type: 'client_credential',
  });
  return (json['data'] as { access_token: string }).access_token;
}

/** Polls `check` every 20 ms until it returns a value other than undefined, or fails after `ms`. */
export async function until<T>(check: () => T | undefined | Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** An app key pair made by the openssl CLI: PKCS8 private key and SPKI public key files. */
export function opensslKeyPair(dir: string, name = 'app'): { privateKeyPath: string; publicKeyPath: string } {
  const privateKeyPath = join(dir, `${name}_private_key.pem`);
  const publicKeyPath = join(dir, `${name}_public_key.pem`);
  execFileSync('openssl', ['genrsa', '-out', privateKeyPath, '2048'], { stdio: 'ignore' });
  execFileSync('openssl', ['rsa', '-in', privateKeyPath, '-pubout', '-out', publicKeyPath], { stdio: 'ignore' });
  return { privateKeyPath, publicKeyPath };
}

/** Signs `data` with SHA256-RSA by the openssl CLI, as the platform's reference shell does, in Base64. */
export function opensslSign(privateKeyPath: string, data: string): string {
  return execFileSync('openssl', ['dgst', '-sha256', '-sign', privateKeyPath], { input: data }).toString('base64');
}

/** Verifies a Base64 SHA256-RSA signature over `data` with the openssl CLI; true on "Verified OK". */
export function opensslVerify(publicKeyPath: string, data: string, signatureBase64: string, dir: string): boolean {
  const signatureFile = join(dir, `sig-${process.pid}-${Math.random().toString(36).slice(2)}.bin`);
  writeFileSync(signatureFile, Buffer.from(signatureBase64, 'base64'));
  try {
    execFileSync('openssl', ['dgst', '-sha256', '-verify', publicKeyPath, '-signature', signatureFile], {
      input: data,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(signatureFile, { force: true });
  }
}

/**
 * Checks a signed response or callback with openssl: the three lines timestamp, nonce, body
 * (platform contract, Signing: verifying a response).
 */
export function verifySignedWithOpenssl(
  publicKeyPath: string,
  headers: { get(name: string): string | null },
  body: string,
  dir: string,
): boolean {
  const timestamp = headers.get('platform-timestamp');
  const nonce = headers.get('platform-nonce-str');
  const signature = headers.get('platform-signature');
  if (timestamp === null || nonce === null || signature === null) return false;
  return opensslVerify(publicKeyPath, `${timestamp}\n${nonce}\n${body}\n`, signature, dir);
}

/**
 * The Platform-Authorization header of a request, signed by the openssl CLI over the five
 * lines of the signing scheme (method, path and query, timestamp, nonce, body).
 */
export function opensslAuthorization(options: {
  privateKeyPath: string;
  appid: string;
  keyVersion: string;
  path: string;
  body: string;
  timestamp?: number;
  nonce?: string;
}): string {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const nonce = options.nonce ?? Math.random().toString(36).slice(2) + Date.now().toString(36);
  const signature = opensslSign(
    options.privateKeyPath,
    `POST\n${options.path}\n${timestamp}\n${nonce}\n${options.body}\n`,
  );
  return `SHA256-RSA2048 appid="${options.appid}",nonce_str="${nonce}",timestamp="${timestamp}",key_version="${options.keyVersion}",signature="${signature}"`;
}
