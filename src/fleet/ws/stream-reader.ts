/**
 * The one blocking reader of a process's streams: its inbox, its reply stream and the
 * broadcast stream, read together by one `XREAD BLOCK` on a connection of its own (a blocking
 * read would hold up every other command on the shared one). Each stream resumes from the last
 * id it handed on, so a Redis blip loses nothing still in a stream (as socket.io's Redis
 * Streams adapter resumes; ids are Redis' clock, so a stream Redis lost and made again reads
 * on from there). The read's own
 * timeout is the block time plus a margin, so a Redis that stops answering is noticed.
 */
import type { FleetWarn } from '../connect.js';
import type { DirectoryRedis, StreamEntry } from './run-script.js';

/** What the reader hands on: the stream's role and its entries, in order. */
export type StreamHandler = (role: StreamRole, entries: StreamEntry[]) => void;

/** Which of a process's streams an entry came from. */
export type StreamRole = 'inbox' | 'replies' | 'broadcast';

/** How long one XREAD blocks, in ms: short, so a stop or a new process id is seen soon. */
export const BLOCK_MS = 1000;
/** Most entries taken from a stream in one read. */
const COUNT = 500;

/** The keys to read; asked before every read (a reaped process reads under its new id). */
export type StreamKeys = () => Record<StreamRole, string>;

/**
 * Reads until `stop()`.
 * @example const reader = new StreamReader(connection, keys, handle, warn, startId); reader.start()
 */
export class StreamReader {
  readonly #redis: DirectoryRedis;
  readonly #keys: StreamKeys;
  readonly #handle: StreamHandler;
  readonly #warn: FleetWarn;
  /** The last id handed on, per key. */
  readonly #last = new Map<string, string>();
  #stopped = false;
  #failing = false;
  #loop: Promise<void> | undefined;

  constructor(redis: DirectoryRedis, keys: StreamKeys, handle: StreamHandler, warn: FleetWarn, broadcastFrom: string) {
    this.#redis = redis;
    this.#keys = keys;
    this.#handle = handle;
    this.#warn = warn;
    this.#last.set(keys().broadcast, broadcastFrom);
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Where the inbox was read up to (the stop drains from there). */
  lastId(key: string): string {
    return this.#last.get(key) ?? '0';
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      const keys = this.#keys();
      const roles = Object.keys(keys) as StreamRole[];
      const names = roles.map((role) => keys[role]);
      try {
        const answer = await this.#redis.xreadBuffer(
          'COUNT',
          COUNT,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          ...names,
          ...names.map((name) => this.lastId(name)),
        );
        this.#failing = false;
        // Replies first: they settle pushes waiting here; then the inbox, then the broadcasts.
        const byKey = new Map((answer ?? []).map(([key, entries]) => [key.toString(), entries]));
        for (const role of ['replies', 'inbox', 'broadcast'] as const) {
          const entries = byKey.get(keys[role]);
          if (entries === undefined || entries.length === 0) continue;
          this.#last.set(keys[role], entries[entries.length - 1]![0].toString());
          try {
            this.#handle(role, entries);
          } catch (error) {
            this.#warn(`the session directory could not handle its ${role}: ${(error as Error).message}`);
          }
        }
      } catch (error) {
        if (this.#stopped) break;
        if (!this.#failing) {
          this.#failing = true;
          this.#warn(`the session directory's stream reader lost Redis (${(error as Error).message}); retrying`);
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  /** Ends the loop and closes the connection (a pending read is cut). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#redis.disconnect();
    await this.#loop?.catch(() => undefined);
  }
}
