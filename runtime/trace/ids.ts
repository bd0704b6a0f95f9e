/**
 * Random trace and span ids (W3C Trace Context: 16 and 8 random bytes, lower-case hex, never
 * all zeros), cut from a string of random hex made in batches. A request that brings no
 * `traceparent` takes both ids; an outgoing call takes a span id.
 *
 * The bytes come from Math.random (V8's xorshift128+, seeded from the operating system's
 * entropy when the process starts), not node:crypto: trace ids are identifiers, not secrets
 * (W3C Trace Context asks for random or pseudo-random ids), and loading node:crypto cost
 * 1.5-2 ms of every cold start, which a function that never signs did not otherwise pay.
 */

/** 16 bytes of hex. */
const ZERO_TRACE = '0'.repeat(32);
/** 8 bytes of hex. */
const ZERO_SPAN = '0'.repeat(16);

/** Requests served by one batch: 256 × 24 random bytes, made and hex-encoded in one call each. */
const BATCH_BYTES = 256 * 24;

/**
 * A source of random ids, made in batches: one `randomBytes(24).toString('hex')` per request
 * took 2.5 µs (node 20), a buffer filled per batch and hex-encoded per id 120 ns, and two
 * slices of a batch hex-encoded at once 55 ns for both ids, the refill included (3M ids; 100 ns
 * while the zero check compared whole slices). A slice shares the batch's memory until the
 * request ends.
 */
export class IdSource {
  #hex = '';
  #at = 0;
  readonly #bytes = Buffer.allocUnsafeSlow(BATCH_BYTES);
  /** The batch as 32-bit words, each filled from one Math.random. */
  readonly #words = new Uint32Array(this.#bytes.buffer, this.#bytes.byteOffset, BATCH_BYTES / 4);

  /** `n` random hex digits (n ≤ 48); refills the batch when it has fewer left. */
  #take(n: number): string {
    let at = this.#at;
    if (at + n > this.#hex.length) {
      const words = this.#words;
      for (let i = 0; i < words.length; i++) words[i] = Math.random() * 4294967296;
      this.#hex = this.#bytes.toString('hex');
      at = 0;
    }
    this.#at = at + n;
    return this.#hex.slice(at, at + n);
  }

  /** A trace id: 32 hex digits, not all zeros. */
  traceId(): string {
    const id = this.#take(32);
    // The first digit first: comparing the whole slice would hash it on every call.
    return id.charCodeAt(0) === 48 && id === ZERO_TRACE ? this.traceId() : id;
  }

  /** A span id: 16 hex digits, not all zeros. */
  spanId(): string {
    const id = this.#take(16);
    return id.charCodeAt(0) === 48 && id === ZERO_SPAN ? this.spanId() : id;
  }
}

/** The process's id source: ids need no per-app state, and one batch serves every app. */
export const ids = new IdSource();
