/**
 * What the fleet tests share: a project with a media function (and the signed-callback one)
 * served by the built CLI's `cloudfn start`, an instance started and read, a call of its media
 * function, and the most arrivals inside any 1000 ms window.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CALLBACK_FN } from './callback-function.js';

const cli = new URL('../../dist/src/cli/index.js', import.meta.url).pathname;
const repo = new URL('../../', import.meta.url).pathname;

/** A function calling the media client: `start` is start_work_flow, else get_work_flow_execution. */
export const MEDIA_FN = `import { createMediaClient, MediaError } from 'cloudfn/media';
const media = createMediaClient();
export default async function (params: { op: string; vid?: string }) {
  try {
    if (params.op === 'start') await media.startWorkFlow({ vid: params.vid ?? 'v-none' });
    else await media.getWorkFlowExecution({ run_id: 'r-none' });
    return { status: 200 };
  } catch (error) {
    if (error instanceof MediaError) return { status: error.status, code: error.code };
    throw error;
  }
}
`;

/** A temporary project with `functions/media.ts` and `functions/callback.ts`, cloudfn and ioredis linked. */
export function fleetProject(): string {
  const root = mkdtempSync(join(tmpdir(), 'cloudfn-fleet-project-'));
  mkdirSync(join(root, 'functions'));
  mkdirSync(join(root, 'node_modules'));
  symlinkSync(repo, join(root, 'node_modules', 'cloudfn'));
  // As a deployment installs it in the run stage when a Redis setting is used.
  symlinkSync(join(repo, 'node_modules', 'ioredis'), join(root, 'node_modules', 'ioredis'));
  writeFileSync(join(root, 'package.json'), '{"type":"module"}');
  writeFileSync(join(root, 'functions', 'callback.ts'), CALLBACK_FN);
  writeFileSync(join(root, 'functions', 'media.ts'), MEDIA_FN);
  return root;
}

export interface Instance {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  /** The `warn` lines on stdout, parsed. */
  warnings: () => Record<string, unknown>[];
}

/** Starts `cloudfn start root` on `port` (a free one by default) and resolves once it prints its URL. */
export function startInstance(root: string, env: NodeJS.ProcessEnv, port = 0): Promise<Instance> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'start', root, '--port', String(port), '--host', '127.0.0.1'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"url":"(http:[^"]+)"/.exec(out);
      const warnings = (): Record<string, unknown>[] =>
        out
          .split('\n')
          .filter((line) => line.includes('"level":"warn"'))
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      if (match) resolve({ child, url: match[1]!.replace('localhost', '127.0.0.1'), stderr: () => err, warnings });
    });
    child.once('exit', (code) => reject(new Error(`cloudfn start exited ${code}: ${err}`)));
  });
}

export async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
}

/** Calls the instance's media function. */
export async function media(instance: Instance, params: object): Promise<{ status: number; code?: string }> {
  const response = await post(`${instance.url}/media`, JSON.stringify(params));
  return (await response.json()) as { status: number; code?: string };
}

/** Most arrivals inside any window of 1000 ms. */
export function maxPerSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}
