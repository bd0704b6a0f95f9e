/**
 * `downloadSource`: fetches an upload job's source URL to a file, measuring size and md5,
 * with a size limit and a timeout; its errors are the job's fail reasons.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { once } from 'node:events';

/** What a finished download measured. */
export interface Downloaded {
  size: number;
  md5: string;
}

/** Options of `downloadSource`. */
export interface DownloadOptions {
  /** Largest file accepted, in bytes; a larger one fails the job. */
  maxBytes: number;
  /** Time the whole download may take, in milliseconds. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Downloads `url` into `file`, counting its size and md5 while it streams, and throws an
 * Error whose message is the job's fail reason (bad scheme, HTTP error, too large, timeout).
 * The partial file is removed on failure.
 * @example const { size, md5 } = await downloadSource('http://127.0.0.1:8080/a.mp4', '/tmp/a', { maxBytes: 1e9, timeoutMs: 60000 })
 */
export async function downloadSource(url: string, file: string, options: DownloadOptions): Promise<Downloaded> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`download failed: ${JSON.stringify(url)} is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`download failed: ${parsed.protocol} is not http or https`);
  }
  const signals = [AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])];
  let response: Response;
  try {
    response = await fetch(parsed, { signal: AbortSignal.any(signals), redirect: 'follow' });
  } catch (error) {
    throw new Error(`download failed: ${describe(error)}`);
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    throw new Error(`download failed: HTTP ${response.status} from ${url}`);
  }
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > options.maxBytes) {
    await response.body.cancel();
    throw new Error(`file too large: ${declared} bytes, the limit is ${options.maxBytes}`);
  }
  const hash = createHash('md5');
  const out = createWriteStream(file);
  let size = 0;
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > options.maxBytes) throw new Error(`file too large: more than ${options.maxBytes} bytes, the limit`);
      hash.update(chunk);
      if (!out.write(chunk)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
  } catch (error) {
    out.destroy();
    await rm(file, { force: true });
    const message =
      error instanceof Error && error.message.startsWith('file too large')
        ? error.message
        : `download failed: ${describe(error)}`;
    throw new Error(message);
  }
  return { size, md5: hash.digest('hex') };
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError') return 'timed out';
    const cause = (error as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
