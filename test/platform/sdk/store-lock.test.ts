/**
 * The database store's lock across processes (src/platform/sdk/database/lock.ts): a lock left
 * by a dead writer is broken, a live writer's is waited for, and a writer releases only its own
 * lock file, never one that replaced it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCK_FILE, withStoreLock } from '../../../src/platform/sdk/database/lock.js';

const dir = mkdtempSync(join(tmpdir(), 'cloudfn-store-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('the store lock', () => {
  it('breaks a lock whose holder has died, and leaves no file of its own behind', async () => {
    const folder = join(dir, 'dead');
    await withStoreLock(folder, async () => undefined);
    writeFileSync(join(folder, LOCK_FILE), `${deadPid()} ${new Date().toISOString()}`);
    const ran = await withStoreLock(folder, async () => 'ran');
    expect(ran).toBe('ran');
    expect(existsSync(join(folder, LOCK_FILE))).toBe(false);
  });

  it("waits for a live holder's lock, then runs", async () => {
    const folder = join(dir, 'live');
    await withStoreLock(folder, async () => undefined);
    const file = join(folder, LOCK_FILE);
    // A live process holds it for 400 ms, then removes it.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    writeFileSync(file, `${holder.pid} ${new Date().toISOString()}`);
    const released = new Promise<number>((resolve) =>
      setTimeout(() => {
        rmSync(file);
        resolve(Date.now());
      }, 400),
    );
    try {
      const ranAt = await withStoreLock(folder, async () => Date.now());
      expect(ranAt).toBeGreaterThanOrEqual(await released);
    } finally {
      holder.kill();
    }
  });

  it('releases only its own lock file, never one that replaced it', async () => {
    const folder = join(dir, 'replaced');
    const file = join(folder, LOCK_FILE);
    await withStoreLock(folder, async () => {
      // Another writer broke ours (as after the stale time) and holds a new lock file now.
      rmSync(file);
      writeFileSync(file, `${process.ppid} other`);
    });
    expect(readFileSync(file, 'utf8')).toBe(`${process.ppid} other`);
  });
});
