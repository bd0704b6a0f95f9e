/**
 * CRC-64/ECMA-182 as TOS computes it for `x-tos-hash-crc64ecma` (the reflected polynomial
 * 0xC96C5795D7870F42, all ones in and out: the CRC-64/XZ parameters), kept as two 32-bit halves
 * so that hashing a body never allocates a BigInt per byte. The header carries the value as an
 * unsigned decimal string, which `digest()` returns.
 */

const POLY_HI = 0xc96c5795;
const POLY_LO = 0xd7870f42;

// One table of 256 entries per half, built once at load.
const TABLE_HI = new Uint32Array(256);
const TABLE_LO = new Uint32Array(256);
for (let n = 0; n < 256; n++) {
  let hi = 0;
  let lo = n;
  for (let bit = 0; bit < 8; bit++) {
    const carry = lo & 1;
    lo = ((lo >>> 1) | (hi << 31)) >>> 0;
    hi = hi >>> 1;
    if (carry) {
      hi = (hi ^ POLY_HI) >>> 0;
      lo = (lo ^ POLY_LO) >>> 0;
    }
  }
  TABLE_HI[n] = hi;
  TABLE_LO[n] = lo;
}

/**
 * A running CRC-64/ECMA-182 over the chunks given to `update`.
 * @example const crc = new Crc64(); crc.update(Buffer.from('123456789')); crc.digest() // '11051210869376104954'
 */
export class Crc64 {
  // The register, inverted (the all-ones start); digest() inverts it back.
  #hi = 0xffffffff;
  #lo = 0xffffffff;

  update(chunk: Uint8Array): this {
    let hi = this.#hi;
    let lo = this.#lo;
    for (let i = 0; i < chunk.length; i++) {
      const index = (lo ^ chunk[i]!) & 0xff;
      lo = (((lo >>> 8) | (hi << 24)) ^ TABLE_LO[index]!) >>> 0;
      hi = ((hi >>> 8) ^ TABLE_HI[index]!) >>> 0;
    }
    this.#hi = hi;
    this.#lo = lo;
    return this;
  }

  /** The value as TOS sends it: an unsigned 64-bit integer in decimal. */
  digest(): string {
    const value = (BigInt(~this.#hi >>> 0) << 32n) | BigInt(~this.#lo >>> 0);
    return value.toString();
  }
}

/**
 * The CRC-64/ECMA-182 of a whole buffer, in TOS's decimal form.
 * @example crc64(Buffer.alloc(0)) // '0'
 */
export function crc64(data: Uint8Array): string {
  return new Crc64().update(data).digest();
}
