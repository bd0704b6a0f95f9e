/**
 * sendToWorker against a real IPC channel whose other end has exited but whose exit the
 * parent has not yet seen: the state in which `cloudfn start --workers` crashed with an
 * unhandled EPIPE when every worker failed to start at once (about one run in twenty).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sendToWorker } from '../../../runtime/serve/worker-message.js';

/**
 * A child with an IPC channel that exits at once (`true` ignores the channel), waited for
 * without letting the event loop run: the parent still holds the channel as connected, and a
 * write to it fails with EPIPE. The wait reads the child's state in /proc (Z: exited, not yet
 * reaped, which needs the event loop).
 */
function exitedChild(): ChildProcess {
  const child = spawn('true', [], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
  const deadline = Date.now() + 20_000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) break;
    if (Date.now() > deadline) throw new Error(`the child ${child.pid} did not exit within 20 s`);
    Atomics.wait(pause, 0, 0, 5);
  }
  return child;
}

/** The next turns of the event loop, where node reports the failed write. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

describe.runIf(process.platform === 'linux')('sendToWorker', () => {
  it('a bare send to such a channel is an error event (the crash the helper prevents)', async () => {
    const child = exitedChild();
    const errors: string[] = [];
    child.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message));
    expect(child.connected).toBe(true);
    child.send('cloudfn:shutdown');
    await settle();
    expect(errors).toEqual(['EPIPE']);
  });

  it('hands the failed write to its callback and emits no error event', async () => {
    const child = exitedChild();
    const errors: unknown[] = [];
    child.on('error', (error) => errors.push(error));
    const undelivered: string[] = [];
    const channel = { isConnected: () => child.connected, send: child.send.bind(child) };
    expect(
      sendToWorker(channel, 'cloudfn:shutdown', (error: NodeJS.ErrnoException) =>
        undelivered.push(error.code ?? error.message),
      ),
    ).toBe(true);
    await settle();
    expect(undelivered).toEqual(['EPIPE']);
    expect(errors).toEqual([]);
  });

  it('returns false without writing when the channel is closed', () => {
    const sent: unknown[] = [];
    const channel = { isConnected: () => false, send: (message: unknown) => sent.push(message) };
    expect(sendToWorker(channel, 'cloudfn:shutdown')).toBe(false);
    expect(sent).toEqual([]);
  });
});
