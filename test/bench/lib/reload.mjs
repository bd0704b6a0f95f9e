/**
 * The dev reload row: `startDevServer` (in its own process) serves a copy of the hello
 * project; each round saves a new version of functions/hello.ts and times from the end of the
 * save until a GET answers with the new version, polling every 2 ms over a kept-alive socket.
 * One unmeasured save first warms esbuild up, as the first edit of a session does.
 */
import { fork } from 'node:child_process';
import { cpSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { skippedRow, valueRow } from './rows.mjs';

const BENCHMARK = 'dev reload: save until the new code answers';
const GOAL = { op: '<=', value: 250 };

function source(version) {
  return `/** The dev reload function, version ${version}. */\nexport default async function hello(params: { name?: string }) {\n  return { hello: params.name ?? 'world', version: ${version} };\n}\n`;
}

function get(url, agent) {
  return new Promise((resolve) => {
    const req = request(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end();
  });
}

/** Saves version `version` and resolves with the milliseconds until it answers. */
async function timeReload(file, url, agent, version) {
  writeFileSync(file, source(version));
  const saved = performance.now();
  const expected = `"version":${version}`;
  for (;;) {
    const answer = await get(url, agent);
    if (answer.status === 200 && answer.body.includes(expected)) return performance.now() - saved;
    if (performance.now() - saved > 10_000)
      throw new Error(
        `version ${version} did not answer within 10 s (last: ${answer.status} ${answer.body.slice(0, 200)})`,
      );
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export async function reloadRow({ root, work, rounds, progress }) {
  const entry = join(root, 'dist/src/dev/index.js');
  if (!existsSync(entry) || typeof (await import(entry)).startDevServer !== 'function') {
    return skippedRow({
      id: 'reload',
      benchmark: BENCHMARK,
      baseline: '—',
      goal: '<= 250 ms (median)',
      reason: 'not available yet: startDevServer (src/dev) is not in dist/',
    });
  }
  const project = join(work, 'reload-project');
  cpSync(join(root, 'test/bench/fixtures/hello-project'), project, { recursive: true });
  const file = join(project, 'functions', 'hello.ts');
  writeFileSync(file, source(0));
  const child = fork(join(root, 'test/bench/servers/dev-server.mjs'), [project], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { port } = await new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`the dev server exited with ${code}:\n${stderr}`)));
    });
    const url = `http://127.0.0.1:${port}/hello?name=bench`;
    const first = await get(url, agent);
    if (first.status !== 200)
      throw new Error(`the dev server answered ${first.status} before any change: ${first.body.slice(0, 200)}`);
    await timeReload(file, url, agent, 1);
    const times = [];
    for (let i = 0; i < rounds; i++) {
      // Saves a moment apart, as an editor makes them: the watcher gathers events for a few ms.
      await new Promise((resolve) => setTimeout(resolve, 150));
      times.push(await timeReload(file, url, agent, i + 2));
      progress(`  save ${i + 1}: ${times.at(-1).toFixed(1)} ms`);
    }
    return valueRow({
      id: 'reload',
      benchmark: BENCHMARK,
      unit: 'ms',
      subject: times,
      goal: GOAL,
      note: 'startDevServer in its own process; the time runs from the end of the write until a GET answers with the new version',
    });
  } finally {
    agent.destroy();
    child.disconnect();
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
    rmSync(project, { recursive: true, force: true });
  }
}
