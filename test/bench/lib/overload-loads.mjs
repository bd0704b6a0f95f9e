/**
 * Issue 32's four misbehaving loads and the normal client beside them, from the client's side
 * only (raw sockets on 127.0.0.1), so the same loads run against a server in this process's
 * child (test/bench/overload.mjs) or in a podman container (./podman-server.mjs). The server
 * serves `small` ('ok'), `big` (a 5 MiB answer) and `upload` (any body).
 */
import { connect } from 'node:net';

const MIB = 1024 * 1024;

/** Each load takes the server's port and resolves with the normal client's statuses (0: none). */
export const LOADS = {
  /** 2,000 keep-alive connections each send one GET and idle; then 20 GETs from others. */
  async idle(port) {
    const sockets = [];
    for (let batch = 0; batch < 20; batch++) {
      await Promise.all(
        Array.from({ length: 100 }, async () => {
          const s = await opened(port);
          sockets.push(s);
          s.write('GET /small HTTP/1.1\r\nHost: x\r\n\r\n');
          await answered(s, 5000);
        }),
      );
    }
    const normal = await normalClient(port, 20, 100);
    for (const s of sockets) s.destroy();
    return { normal };
  },
  /** 600 connections dripping header bytes and 600 silent ones; 20 GETs meanwhile. */
  async slowloris(port) {
    const sockets = [];
    for (let i = 0; i < 600; i++) {
      sockets.push(await opened(port), await opened(port));
    }
    let drip = 0;
    const timer = setInterval(() => {
      drip++;
      for (let i = 0; i < sockets.length; i += 2)
        if (!sockets[i].destroyed) sockets[i].write(drip === 1 ? 'GET /small HTTP/1.1\r\n' : `X-${drip}: a\r\n`);
    }, 1000);
    await sleep(2000);
    const normal = await normalClient(port, 20, 250);
    clearInterval(timer);
    for (const s of sockets) s.destroy();
    return { normal };
  },
  /** 200 clients ask for a 5 MiB answer and never read it; 16 GETs meanwhile. */
  async stalled(port) {
    const sockets = [];
    for (let i = 0; i < 200; i++) {
      const s = await opened(port);
      s.pause();
      s.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
      sockets.push(s);
    }
    await sleep(1000);
    const normal = await normalClient(port, 16, 250);
    for (const s of sockets) s.destroy();
    return { normal };
  },
  /** 100 concurrent 8 MiB uploads, a small GET every 250 ms beside them; `other`: their statuses. */
  async uploads(port) {
    const body = Buffer.alloc(8 * MIB, 0x61);
    let done = false;
    const uploads = Promise.all(
      Array.from({ length: 100 }, async () => {
        const s = await opened(port);
        s.write(
          `POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
        );
        s.write(body);
        return answered(s, 60_000);
      }),
    ).finally(() => (done = true));
    const normal = [];
    while (!done) {
      normal.push(ask(port));
      await sleep(250);
    }
    return { normal: await Promise.all(normal), other: await uploads };
  },
};

export const LOAD_NAMES = Object.keys(LOADS);

function opened(port) {
  return new Promise((done) => {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => undefined);
    s.once('connect', () => done(s));
    s.once('close', () => done(s));
  });
}

/** The status of the first answer on `s`, or 0 when none came within `ms`. */
function answered(s, ms) {
  return new Promise((done) => {
    let head = '';
    const finish = () => {
      clearTimeout(timer);
      done(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0));
    };
    const timer = setTimeout(finish, ms);
    s.on('data', (chunk) => {
      if (head.length < 16) head += chunk.toString('latin1', 0, 16);
      if (head.length >= 12) finish();
    });
    s.once('close', finish);
  });
}

async function ask(port) {
  const s = await opened(port);
  s.write('GET /small HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  const got = await answered(s, 10_000);
  s.destroy();
  return got;
}

async function normalClient(port, n, everyMs) {
  const asked = [];
  for (let i = 0; i < n; i++) {
    asked.push(ask(port));
    await sleep(everyMs);
  }
  return Promise.all(asked);
}

/** `{ 200: 18, 503: 2 }` from a list of statuses (`none` for 0). */
export function count(statuses) {
  const out = {};
  for (const s of statuses) out[s || 'none'] = (out[s || 'none'] ?? 0) + 1;
  return out;
}

function sleep(ms) {
  return new Promise((done) => setTimeout(done, ms));
}
