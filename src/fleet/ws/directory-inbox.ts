/**
 * Pushes and group changes between processes of the Redis directory: sent to the owners'
 * inboxes in one script, one round trip, and the owners' answers awaited until the deadline
 * (anything not answered as delivered is failed); and, on the owner's side, the entries read
 * from its inbox delivered (or applied) and answered to each sender's reply stream.
 */
import { SEND } from './directory-scripts.js';
import type { DirectoryState } from './directory-state.js';
import { entryFields, runScript, type StreamEntry } from './run-script.js';
import type { PushVia } from './session-directory.js';

/** How long a stream outlives its last entry: a process that never comes back leaves nothing. */
const STREAM_TTL_MS = 60_000;

/** A push or group change waiting for its owners' answers. */
interface Waiting {
  /** Sessions the owners answered as done. */
  done: Set<string>;
  /** Owners that must answer; -1 until the send script answered (or when it failed). */
  owners: number;
  answered: number;
  finish: () => void;
}

/** Applies a group change to this process's sessions; answers the ids not here. */
export type ApplyGroup = (
  action: 'join' | 'leave',
  ids: readonly string[],
  name: string,
  value: string,
) => Promise<string[]>;

/** One process's sends to other processes' inboxes, and its own inbox and replies. */
export class DirectoryInbox {
  readonly #state: DirectoryState;
  readonly #applyGroup: ApplyGroup;
  readonly #waiting = new Map<string, Waiting>();
  #nextRequest = 0;

  constructor(state: DirectoryState, applyGroup: ApplyGroup) {
    this.#state = state;
    this.#applyGroup = applyGroup;
  }

  /**
   * Sends an entry to the owners of `ids` and waits for their answers until the deadline:
   * resolves with the ids answered as done. `self` handles an id whose record names this
   * process though its gateway does not have it (a record left behind).
   */
  async send(
    type: 'p' | 'g',
    ids: string[],
    payload: [Buffer | string, string, string],
    self: (id: string) => boolean,
  ): Promise<Set<string>> {
    const state = this.#state;
    const request = String(++this.#nextRequest);
    // When this sender gives up, on Redis' clock: owners drop what they read after it.
    const deadline = Math.round(Date.now() + state.clockOffset + state.options.pushTimeoutMs);
    const done = new Set<string>();
    let finish!: () => void;
    const settled = new Promise<void>((resolve) => (finish = resolve));
    const waiting: Waiting = { done, owners: -1, answered: 0, finish };
    this.#waiting.set(request, waiting);
    const timer = setTimeout(finish, state.options.pushTimeoutMs);
    try {
      const { redis } = await state.ready;
      const owners = (await runScript(redis, SEND, [
        state.prefix,
        state.proc,
        request,
        deadline,
        state.options.streamMaxLen,
        STREAM_TTL_MS,
        type,
        ...payload,
        ...ids,
      ])) as string[];
      const remoteOwners = new Set<string>();
      owners.forEach((owner, i) => {
        if (owner === '' || owner === '!') return;
        if (owner === state.proc) {
          if (self(ids[i]!)) done.add(ids[i]!);
        } else remoteOwners.add(owner);
      });
      waiting.owners = remoteOwners.size;
      if (waiting.answered >= waiting.owners) finish();
    } catch (error) {
      // The entries may have been sent (a timed-out script may still have run): wait for any
      // answer until the deadline rather than fail what may be delivered. Never sent again.
      state.redisFailed('send a push to another process', error);
      if (state.closed) finish();
    }
    await settled;
    clearTimeout(timer);
    this.#waiting.delete(request);
    return done;
  }

  /** An owner's answer read from this process's reply stream. */
  onReply(fields: Map<string, Buffer>): void {
    const waiting = this.#waiting.get(fields.get('r')?.toString() ?? '');
    if (waiting === undefined) return; // answered after its deadline: already failed
    for (const id of lines(fields.get('k'))) waiting.done.add(id);
    waiting.answered += 1;
    if (waiting.owners >= 0 && waiting.answered >= waiting.owners) waiting.finish();
  }

  /** Delivers (or applies) what other processes sent, and answers each sender in one pipeline. */
  onInbox(entries: StreamEntry[]): Promise<void> {
    const state = this.#state;
    const answers: [string, string, string][] = [];
    const groupChanges: Promise<unknown>[] = [];
    const now = Date.now() + state.clockOffset;
    for (const [, raw] of entries) {
      const fields = entryFields(raw);
      const from = fields.get('f')?.toString() ?? '';
      const request = fields.get('r')?.toString() ?? '';
      const ids = lines(fields.get('s'));
      const type = fields.get('t')?.toString();
      if (type !== 'p' && type !== 'g') continue; // a wake-up
      // Past its deadline (less a margin for the answer's way back) the sender has failed it:
      // delivering it now would deliver a push reported failed.
      if (now > Number(fields.get('d')?.toString()) - this.#guardMs()) continue;
      if (type === 'g') {
        const [action, name, value] = ['a', 'b', 'c'].map((f) => fields.get(f)?.toString() ?? '');
        groupChanges.push(
          this.#applyGroup(action === 'leave' ? 'leave' : 'join', ids, name!, value!).then((notHere) => {
            const skip = new Set(notHere);
            answers.push([from, request, ids.filter((id) => !skip.has(id)).join('\n')]);
          }),
        );
        continue;
      }
      const data = fields.get('a') ?? Buffer.alloc(0);
      const binary = fields.get('b')?.toString() === '1';
      const via = (fields.get('c')?.toString() ?? 'session') as PushVia;
      const ok = ids.filter((id) => state.local.deliver(id, data, binary, via));
      answers.push([from, request, ok.join('\n')]);
    }
    return Promise.all(groupChanges).then(() => this.#answer(answers));
  }

  /** Ends every wait at once (the directory closes): what is not answered yet is failed. */
  finishAll(): void {
    for (const waiting of this.#waiting.values()) waiting.finish();
  }

  /** The margin before an entry's deadline after which it is no longer delivered. */
  #guardMs(): number {
    return Math.min(100, Math.round(this.#state.options.pushTimeoutMs / 4));
  }

  async #answer(answers: [string, string, string][]): Promise<void> {
    if (answers.length === 0) return;
    const state = this.#state;
    try {
      const { redis } = await state.ready;
      await Promise.all(
        answers.map(async ([to, request, ok]) => {
          const key = `${state.prefix}re:${to}`;
          await redis.xadd(key, 'MAXLEN', '~', state.options.streamMaxLen, '*', 'r', request, 'k', ok);
          await redis.pexpire(key, STREAM_TTL_MS);
        }),
      );
    } catch (error) {
      state.redisFailed('answer a push from another process', error);
    }
  }
}

/** A field's lines; none for an empty or missing field. */
function lines(value: Buffer | undefined): string[] {
  const text = value?.toString() ?? '';
  return text === '' ? [] : text.split('\n');
}
