/**
 * The Redis directory's heartbeat: this process's liveness key, refreshed every heartbeat and
 * living three; its records written again when Redis lost them (the key was missing) or when
 * the fleet reaped it (it takes a new process id); and the reaping of dead processes, whose
 * sessions one script claims for this survivor, which calls `orphaned` once for each.
 */
import { FORGET_ORPHANS, HEARTBEAT, READ_ORPHANS, REAP, REGISTER } from './directory-scripts.js';
import { type DirectoryState, newProcessId, registerArgs, sessionFrom } from './directory-state.js';
import { type DirectoryRedis, runScript } from './run-script.js';

/** How long a reaped process's tombstone stays: its return, even an hour later, is noticed. */
const TOMBSTONE_MS = 3_600_000;
/** The longest heartbeat round trip whose answer is taken to read Redis' clock. */
const CLOCK_SAMPLE_MAX_MS = 50;

/** Beats every `heartbeatMs` once started, one beat at a time. */
export class Heartbeat {
  readonly #state: DirectoryState;
  /** Orphans handed to the gateway whose records are not yet forgotten in Redis. */
  readonly #handled = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> | undefined;

  constructor(state: DirectoryState) {
    this.#state = state;
  }

  /** Beats every `heartbeatMs` from now on, without holding the process open. */
  start(): void {
    this.#timer = setInterval(() => void this.beat(), this.#state.options.heartbeatMs);
    this.#timer.unref();
  }

  /** No further beat is started by the timer. */
  stop(): void {
    clearInterval(this.#timer);
  }

  /** Resolves once the beat under way, if any, ended. */
  async settled(): Promise<void> {
    await this.#beating?.catch(() => undefined);
  }

  /** Beats now, or joins the beat under way. */
  beat(): Promise<void> {
    this.#beating ??= this.#beat().finally(() => (this.#beating = undefined));
    return this.#beating;
  }

  async #beat(): Promise<void> {
    const state = this.#state;
    if (state.closed) return;
    let redis: DirectoryRedis;
    try {
      ({ redis } = await state.ready);
      const sent = Date.now();
      const [alive, redisNow] = (await runScript(redis, HEARTBEAT, [state.prefix, state.proc, state.ttl()])) as [
        number,
        number,
      ];
      // Only from a quick answer: one held up (a stopped process, a stalled loop) would put
      // Redis' clock too early by half the hold-up and let entries past their deadline through.
      const roundTrip = Date.now() - sent;
      if (roundTrip <= CLOCK_SAMPLE_MAX_MS) state.clockOffset = redisNow - (sent + roundTrip / 2);
      state.redisAnswered();
      if (alive === -1) {
        // Reaped while it could not answer (stopped, partitioned): a survivor called disconnect
        // for its sessions. Their sockets are still open here, so they go on under a new id.
        const old = state.proc;
        state.proc = newProcessId();
        state.warn(
          `the session directory was declared dead by the fleet (no heartbeat for ${state.ttl()} ms) as ${old}; its sessions are registered again as ${state.proc}`,
        );
        await runScript(redis, HEARTBEAT, [state.prefix, state.proc, state.ttl()]);
        state.mustRegister = true;
        // Wake the reader blocked on the old inbox, so it reads the new one from now on.
        const oldInbox = `${state.prefix}in:${old}`;
        await redis.xadd(oldInbox, '*', 't', 'w');
        await redis.pexpire(oldInbox, state.options.heartbeatMs);
      } else if (alive === 0) {
        state.mustRegister = true;
      }
      if (state.mustRegister) await this.#registerAll(redis);
      await this.#reap(redis);
    } catch (error) {
      state.redisFailed('refresh its liveness key', error);
    }
  }

  /** Writes every session of this process again, in batches of one script each. */
  async #registerAll(redis: DirectoryRedis): Promise<void> {
    const state = this.#state;
    state.mustRegister = true;
    const sessions = state.local.list();
    for (let i = 0; i < sessions.length; i += 200) {
      const args = sessions.slice(i, i + 200).flatMap(registerArgs);
      const written = await runScript(redis, REGISTER, [state.prefix, state.proc, ...args]);
      if (written === -1) return; // reaped meanwhile: the next heartbeat starts over
    }
    state.mustRegister = false;
  }

  /**
   * Claims the sessions of dead processes (REAP), then handles its claims in batches: read,
   * `orphaned` once each, then forgotten in Redis. A batch's forgetting that timed out is read
   * again at the next heartbeat; `#handled` keeps its ids so none is handed on twice.
   */
  async #reap(redis: DirectoryRedis): Promise<void> {
    const state = this.#state;
    const batch = state.options.reapBatch;
    for (;;) {
      const claimed = Number(await runScript(redis, REAP, [state.prefix, state.proc, batch, TOMBSTONE_MS]));
      const flat = (await runScript(redis, READ_ORPHANS, [state.prefix, state.proc, batch])) as string[];
      const ids: string[] = [];
      for (let i = 0; i + 2 < flat.length; i += 3) {
        const sid = flat[i]!;
        ids.push(sid);
        if (this.#handled.has(sid)) continue;
        this.#handled.add(sid);
        const info = sessionFrom(flat[i + 1]!, flat[i + 2]!);
        if (info === undefined) continue;
        state.local.orphaned(info).catch((error: unknown) => {
          state.warn(`the disconnect call of orphaned session ${sid} failed: ${(error as Error).message}`);
        });
      }
      if (ids.length > 0) {
        await runScript(redis, FORGET_ORPHANS, [state.prefix, state.proc, ...ids]);
        for (const id of ids) this.#handled.delete(id);
      }
      if (claimed < batch && ids.length < batch) return;
    }
  }
}
