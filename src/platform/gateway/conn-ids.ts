/**
 * Single-use connection ids, as a custom domain needs them: the server gets one from the push
 * host's `/ws/get_conn_id` (`{ service_id, env_id, token }`, answered with `data` as the JSON
 * *string* `{"conn_id":"…"}`), hands it to its client, and the client connects with it in
 * `X-TT-WS-CONN-ID`. An id opens one connection. By default any id the client makes up is taken
 * once too; with `requireIssued` (CLOUDFN_WS_REQUIRE_CONN_ID) only an id issued here and not
 * yet used opens one. Per-gateway state.
 */
import { randomBytes } from 'node:crypto';

/** At most this many issued ids wait for their connection; the oldest is dropped past it. */
export const MAX_WAITING_CONN_IDS = 10_000;

/** What taking an id gave: it opens the connection, or why not. */
export type ConnIdCheck = 'ok' | 'used' | 'unknown';

/** The ids of one gateway. */
export class ConnIds {
  /** Issued and not yet used, oldest first (a Map keeps insertion order). */
  readonly #waiting = new Map<string, true>();
  readonly #used = new Set<string>();

  /**
   * A new id for one connection.
   * @example ids.issue() // 'c-3f9a…'
   */
  issue(): string {
    const id = `c-${randomBytes(16).toString('hex')}`;
    this.#waiting.set(id, true);
    if (this.#waiting.size > MAX_WAITING_CONN_IDS) {
      const oldest = this.#waiting.keys().next().value;
      if (oldest !== undefined) this.#waiting.delete(oldest);
    }
    return id;
  }

  /** Takes `id` for a connection: `ok` once; `used` after; `unknown` when `requireIssued` and it was never issued. */
  take(id: string, requireIssued: boolean): ConnIdCheck {
    if (this.#used.has(id)) return 'used';
    const issued = this.#waiting.delete(id);
    if (!issued && requireIssued) return 'unknown';
    this.#used.add(id);
    return 'ok';
  }
}
