/**
 * `holdHook` of the host table: the intranet hook on before any server adds its hosts, so a
 * client that copies an agent's `createConnection` when it is made (the TOS SDK's agent) sees
 * it; released, the agents are as they were.
 */
import https from 'node:https';
import { describe, expect, it } from 'vitest';
import { holdHook } from '../../runtime/intranet/host-table.js';

describe('holdHook', () => {
  it('wraps the agents while held, and restores them when the last hold is released', async () => {
    const original = https.Agent.prototype.createConnection;
    const first = await holdHook();
    const second = await holdHook();
    const held = https.Agent.prototype.createConnection;
    expect(held).not.toBe(original);
    await first();
    await first(); // a second release of the same hold counts once
    expect(https.Agent.prototype.createConnection).toBe(held);
    await second();
    expect(https.Agent.prototype.createConnection).toBe(original);
  });
});
