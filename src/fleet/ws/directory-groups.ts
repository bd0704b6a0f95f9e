/**
 * Groups in the Redis directory: a group change of this process's sessions, made in its gateway
 * and in their records; and a group push, delivered at once to this process's members and sent
 * to the others as one entry of the broadcast stream, from which each process delivers to its own.
 */
import { GROUP } from './directory-scripts.js';
import type { DirectoryState } from './directory-state.js';
import { runScript } from './run-script.js';

/** Group changes and group pushes of one process's directory. */
export class DirectoryGroups {
  readonly #state: DirectoryState;

  constructor(state: DirectoryState) {
    this.#state = state;
  }

  /** This process's sessions joined or left in its gateway and in Redis; answers the ids not here. */
  async apply(action: 'join' | 'leave', ids: readonly string[], name: string, value: string): Promise<string[]> {
    if (ids.length === 0) return [];
    const state = this.#state;
    const notHere = state.local.group(action, ids, name, value);
    const skip = new Set(notHere);
    const changed = ids.filter((id) => !skip.has(id));
    if (changed.length > 0) {
      try {
        const { redis } = await state.ready;
        await runScript(redis, GROUP, [state.prefix, state.proc, action, `${name}=${value}`, ...changed]);
      } catch (error) {
        // The gateway has it; the records follow at the next re-registration.
        state.mustRegister = true;
        state.redisFailed('record a group change', error);
      }
    }
    return notHere;
  }

  /** Delivers to this process's members, and broadcasts to the others'. */
  async push(name: string, value: string, data: Buffer, binary: boolean): Promise<void> {
    const state = this.#state;
    // This process's members at once; the others read the broadcast.
    for (const id of state.local.groupMembers(name, value)) state.local.deliver(id, data, binary, 'group');
    try {
      const { redis } = await state.ready;
      const key = `${state.prefix}bc`;
      await redis.xadd(
        key,
        'MAXLEN',
        '~',
        state.options.streamMaxLen,
        '*',
        'f',
        state.proc,
        'n',
        `${name}=${value}`,
        'm',
        data,
        'b',
        binary ? '1' : '0',
      );
    } catch (error) {
      state.redisFailed('broadcast a group push', error);
    }
  }

  /** A broadcast entry read: delivered to this process's members, unless this process sent it. */
  onBroadcast(fields: Map<string, Buffer>): void {
    const state = this.#state;
    if (fields.get('f')?.toString() === state.proc) return; // delivered when sent
    const group = fields.get('n')?.toString() ?? '';
    const at = group.indexOf('=');
    if (at < 0) return;
    const data = fields.get('m') ?? Buffer.alloc(0);
    const binary = fields.get('b')?.toString() === '1';
    for (const id of state.local.groupMembers(group.slice(0, at), group.slice(at + 1)))
      state.local.deliver(id, data, binary, 'group');
  }
}
