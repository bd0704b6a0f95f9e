/**
 * What the WebSocket fleet test runs: a project whose `ws` function is the gateway's callback
 * (connect pushes the session its own id and process; disconnect appends a line to a log), a
 * `push` function calling the platform's push API with plain fetch, HAProxy from the starter
 * template in front of the processes, and clients (the `ws` package) that record every frame.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { freePort } from '../testing/free-port.js';

export const hasHaproxy = spawnSync('sh', ['-c', 'command -v haproxy'], { stdio: 'ignore' }).status === 0;

const REPO = new URL('../../', import.meta.url).pathname;

/** The gateway's callback: connect pushes `{"sid","pid"}`; disconnect logs `sid pid`. */
export const WS_FN = `import { appendFileSync } from 'node:fs';
export default async function (params: unknown, service: any) {
  const event = service.headers['x-tt-event-type'];
  const sid = service.headers['x-tt-sessionid'];
  if (event === 'connect') {
    const answer = await fetch('http://ws-push.dycloud-api.service/ws/push_data', {
      method: 'POST',
      headers: { 'x-tt-ws-sessionids': JSON.stringify([sid]), 'content-type': 'text/plain' },
      body: JSON.stringify({ sid, pid: process.pid }),
    });
    await answer.text();
  } else if (event === 'disconnect') {
    appendFileSync(process.env.WS_LOG!, sid + ' ' + process.pid + '\\n');
  }
  return 'success';
}
`;

/** Calls the push API: \`{ path, sids?, group?, data }\`, answers the envelope and the time it took. */
export const PUSH_FN = `export default async function (params: { path: string; sids?: string[]; group?: string; data?: string }) {
  const headers: Record<string, string> = { 'content-type': 'text/plain' };
  if (params.sids) headers['x-tt-ws-sessionids'] = JSON.stringify(params.sids);
  if (params.group) {
    headers['x-tt-ws-groupname'] = 'g';
    headers['x-tt-ws-groupvalue'] = params.group;
  }
  const started = performance.now();
  const answer = await fetch('http://ws-push.dycloud-api.service' + params.path, { method: 'POST', headers, body: params.data ?? '' });
  const envelope = await answer.json();
  return { envelope, ms: performance.now() - started, pid: process.pid };
}
`;

/** HAProxy running the starter template, with these servers; resolves once it serves. */
export async function startHaproxy(work: string, ports: number[]): Promise<{ child: ChildProcess; url: string }> {
  const front = await freePort();
  const cfg = readFileSync(join(REPO, 'templates/starter/deploy/haproxy.cfg'), 'utf8')
    .replace('bind 127.0.0.1:8080', `bind 127.0.0.1:${front}`)
    .replace(/server fn(\d) 127\.0\.0\.1:800\d/g, (_, n: string) => `server fn${n} 127.0.0.1:${ports[Number(n) - 1]}`);
  const file = join(work, 'haproxy.cfg');
  writeFileSync(file, cfg);
  const child = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = `http://127.0.0.1:${front}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ok = await fetch(`${url}/v1/ping`)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) return { child, url };
    if (Date.now() > deadline) throw new Error('HAProxy did not serve within 15 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A client of the gateway: its session, its process, every frame after the first, and its closes. */
export class Client {
  socket!: WebSocket;
  sid = '';
  pid = 0;
  readonly frames: string[] = [];
  readonly closes: number[] = [];
  /** Sessions it had before reconnecting. */
  readonly previous: string[] = [];
  #reconnect = false;

  constructor(
    readonly front: string,
    readonly openid: string,
  ) {}

  /** Connects, retrying refused upgrades for up to `ms`; resolves once its session id came. */
  async open(ms = 20_000): Promise<this> {
    const deadline = Date.now() + ms;
    for (;;) {
      try {
        await this.#once();
        return this;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  #once(): Promise<void> {
    return new Promise((resolve, reject) => {
      const url = `${this.front.replace('http:', 'ws:')}/__dycloud__/ws/connect/?service_path=/ws&openid=${this.openid}`;
      const socket = new WebSocket(url);
      let first = true;
      const timer = setTimeout(() => {
        socket.terminate();
        reject(new Error(`no session id within 15 s for ${this.openid}`));
      }, 15_000);
      socket.on('message', (data) => {
        const text = data.toString();
        if (first) {
          first = false;
          clearTimeout(timer);
          const hello = JSON.parse(text) as { sid: string; pid: number };
          if (this.sid !== '') this.previous.push(this.sid);
          this.sid = hello.sid;
          this.pid = hello.pid;
          this.socket = socket;
          resolve();
          return;
        }
        this.frames.push(text);
      });
      socket.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.on('close', (code) => {
        clearTimeout(timer);
        if (this.socket !== socket) return;
        this.closes.push(code);
        // As a game client does when its server goes away (1001, or cut): connect again, elsewhere.
        if (this.#reconnect) void this.open(120_000).catch(() => undefined);
      });
    });
  }

  /** Reconnects by itself after a close from now on. */
  reconnecting(): this {
    this.#reconnect = true;
    return this;
  }

  get open_(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  close(): void {
    this.#reconnect = false;
    this.socket?.terminate();
  }
}

/** Runs `task` over `items`, at most `limit` at once. */
export async function pool<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await task(items[i]!);
      }
    }),
  );
  return results;
}

/** The value at quantile `q` (0..1) of `values`. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** The resident memory of a process, in bytes (Linux). */
export function rss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

const CLI = new URL('../../dist/src/cli/index.js', import.meta.url).pathname;

/** `cloudfn dev root` (the built CLI) on a free port, without the type check; resolves once it serves. */
export function startDev(root: string, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [CLI, 'dev', root, '--port', '0', '--no-typecheck'], {
    cwd: root,
    env: { ...process.env, ...env, NO_COLOR: '1', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cloudfn dev not serving after 60 s: ${out}`)), 60_000);
    child.once('exit', (code) => reject(new Error(`cloudfn dev exited ${code}: ${out}`)));
    const read = (chunk: Buffer): void => {
      out += chunk.toString();
      const match = /dev server on (http:\/\/\S+) with/.exec(out);
      if (match === null) return;
      clearTimeout(timer);
      resolve({ child, url: match[1]!.replace('localhost', '127.0.0.1') });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
  });
}
