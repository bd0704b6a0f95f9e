/**
 * The dev reload rows: `startDevServer` (in its own process) serves a copy of the hello
 * project; each round saves a new version of functions/hello.ts and times from the end of the
 * save until a GET answers with the new version, polling every 2 ms over a kept-alive socket.
 * One unmeasured save first warms esbuild up, as the first edit of a session does. With the
 * type checker on (`typecheckRows`), the same reload is timed while tsc --watch runs beside
 * it, and so is save → type error shown: from the end of a save that breaks a type until the
 * console's event stream (what the page and the terminal show) reports the error.
 */
import { fork } from 'node:child_process';
import { cpSync, existsSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { skippedRow, valueRow } from './rows.mjs';

const BENCHMARK = 'dev reload: save until the new code answers';
const GOAL = { op: '<=', value: 250 };

const TYPED_BENCHMARK = 'dev reload with the type checker on';
const TYPED_GOAL = { op: '<=', value: 50 };
const ERROR_BENCHMARK = 'dev type check: save until the type error is shown';
const ERROR_GOAL = { op: '<=', value: 2000 };

/** Version `version` of the function; with `broken`, it holds one type error (and still runs). */
function source(version, broken = false) {
  const error = broken ? `  const count: number = 'v${version}';\n` : '';
  return `/** The dev reload function, version ${version}. */\nexport default async function hello(params: { name?: string }) {\n${error}  return { hello: params.name ?? 'world', version: ${version} };\n}\n`;
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

async function devServerBuilt(root) {
  const entry = join(root, 'dist/src/dev/index.js');
  return existsSync(entry) && typeof (await import(entry)).startDevServer === 'function';
}

/** Starts the dev server on a copy of the hello project; `use` runs with it, then it stops. */
async function withDevServer({ root, project, typecheck }, use) {
  const file = join(project, 'functions', 'hello.ts');
  writeFileSync(file, source(0));
  const args = typecheck ? [project, '--typecheck'] : [project];
  const child = fork(join(root, 'test/bench/servers/dev-server.mjs'), args, {
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
    return await use({ file, url, agent, port });
  } finally {
    agent.destroy();
    child.disconnect();
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
    rmSync(project, { recursive: true, force: true });
  }
}

/** Times `rounds` saves until served, after one unmeasured warm-up save. */
async function timeReloads({ file, url, agent }, rounds, progress, next = { version: 1 }) {
  await timeReload(file, url, agent, next.version++);
  const times = [];
  for (let i = 0; i < rounds; i++) {
    // Saves a moment apart, as an editor makes them: the watcher gathers events for a few ms.
    await new Promise((resolve) => setTimeout(resolve, 150));
    times.push(await timeReload(file, url, agent, next.version++));
    progress(`  save ${i + 1}: ${times.at(-1).toFixed(1)} ms`);
  }
  return times;
}

export async function reloadRow({ root, work, rounds, progress }) {
  if (!(await devServerBuilt(root))) {
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
  const times = await withDevServer({ root, project, typecheck: false }, (server) =>
    timeReloads(server, rounds, progress),
  );
  return valueRow({
    id: 'reload',
    benchmark: BENCHMARK,
    unit: 'ms',
    subject: times,
    goal: GOAL,
    note: 'startDevServer in its own process; the time runs from the end of the write until a GET answers with the new version',
  });
}

/**
 * Follows the console's event stream; `next(test)` resolves with the data of the first
 * `typecheck` event from now on that passes `test`.
 */
function typecheckEvents(port) {
  const waiters = new Set();
  const req = request(`http://127.0.0.1:${port}/_cloudfn/api/events`, (res) => {
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (event !== 'typecheck' || data === undefined) continue;
        const info = JSON.parse(data);
        for (const waiter of waiters) {
          if (!waiter.test(info)) continue;
          waiters.delete(waiter);
          waiter.resolve(info);
        }
      }
    });
  });
  req.on('error', () => undefined);
  req.end();
  return {
    next(test, what, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no typecheck event with ${what} within ${timeoutMs} ms`));
        }, timeoutMs);
        const waiter = { test, resolve: (info) => (clearTimeout(timer), resolve(info)) };
        waiters.add(waiter);
      });
    },
    close: () => req.destroy(),
  };
}

const clean = (info) => info.state === 'done' && info.diagnostics.length === 0;
const failing = (info) => info.state === 'done' && info.diagnostics.length > 0;

/** The two type checker rows: save → served with the checker on, and save → type error shown. */
export async function typecheckRows({ root, work, rounds, progress }) {
  const skip = (reason) => [
    skippedRow({ id: 'reload-typecheck', benchmark: TYPED_BENCHMARK, baseline: '—', goal: '<= 50 ms', reason }),
    skippedRow({ id: 'typecheck-error', benchmark: ERROR_BENCHMARK, baseline: '—', goal: '<= 2000 ms', reason }),
  ];
  if (!(await devServerBuilt(root))) return skip('not available yet: startDevServer (src/dev) is not in dist/');
  if (!existsSync(join(root, 'node_modules/typescript'))) return skip('typescript is not installed');
  const project = join(work, 'typecheck-project');
  cpSync(join(root, 'test/bench/fixtures/hello-project'), project, { recursive: true });
  writeFileSync(join(project, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', types: [] },
      include: ['functions'],
    }),
  );
  symlinkSync(join(root, 'node_modules'), join(project, 'node_modules'));
  return withDevServer({ root, project, typecheck: true }, async (server) => {
    const events = typecheckEvents(server.port);
    try {
      // The first check of a session reads the whole program: not what a save costs.
      await events.next(clean, 'no errors (the first check)');
      const next = { version: 1 };
      progress('  save → served, type checker on');
      const served = await timeReloads(server, rounds, progress, next);
      await events.next(clean, 'no errors (after the last save)');
      progress('  save → type error shown');
      const shown = [];
      for (let i = 0; i < rounds; i++) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        const waiting = events.next(failing, 'an error');
        writeFileSync(server.file, source(next.version++, true));
        const saved = performance.now();
        await waiting;
        shown.push(performance.now() - saved);
        progress(`  error ${i + 1}: ${shown.at(-1).toFixed(0)} ms`);
        const fixed = events.next(clean, 'no errors (fixed)');
        writeFileSync(server.file, source(next.version++));
        await fixed;
      }
      return [
        valueRow({
          id: 'reload-typecheck',
          benchmark: TYPED_BENCHMARK,
          unit: 'ms',
          subject: served,
          goal: TYPED_GOAL,
          note: 'as the reload row, with startDevServer({ typecheck: true }): tsc --watch checks each save in its child process meanwhile',
        }),
        valueRow({
          id: 'typecheck-error',
          benchmark: ERROR_BENCHMARK,
          unit: 'ms',
          subject: shown,
          goal: ERROR_GOAL,
          note: "from the end of the write until the console's event stream carries the error (the terminal prints it at the same moment)",
        }),
      ];
    } finally {
      events.close();
    }
  });
}
