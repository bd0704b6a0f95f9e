/**
 * The Blob and FormData of the fetch given to function-service files on Node 14
 * (web-globals.ts): bytes with a type, and fields and files encoded as multipart/form-data.
 */

/** A Blob: bytes and a type (Node 14's `buffer.Blob` is experimental and warns). */
export class FallbackBlob {
  readonly #bytes: Buffer;
  readonly type: string;
  constructor(
    parts: ReadonlyArray<string | Uint8Array | ArrayBuffer | FallbackBlob> = [],
    options: { type?: string } = {},
  ) {
    this.#bytes = Buffer.concat(parts.map(toBuffer));
    this.type = (options.type ?? '').toLowerCase();
  }
  get size(): number {
    return this.#bytes.length;
  }
  async text(): Promise<string> {
    return this.#bytes.toString('utf8');
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    return arrayBufferOf(this.#bytes);
  }
  slice(start?: number, end?: number, type?: string): FallbackBlob {
    return new FallbackBlob([this.#bytes.subarray(start, end)], { type: type ?? this.type });
  }
  /** The bytes, for fetch's body. */
  _bytes(): Buffer {
    return this.#bytes;
  }
}

export function toBuffer(part: string | Uint8Array | ArrayBuffer | FallbackBlob): Buffer {
  if (part instanceof FallbackBlob) return part._bytes();
  if (typeof part === 'string') return Buffer.from(part, 'utf8');
  if (part instanceof ArrayBuffer) return Buffer.from(part);
  return Buffer.from(part.buffer, part.byteOffset, part.byteLength);
}

export const arrayBufferOf = (bytes: Buffer): ArrayBuffer =>
  bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

/** FormData: fields and files, sent as multipart/form-data. */
export class FallbackFormData {
  readonly #entries: Array<[string, string | FallbackBlob, string | undefined]> = [];
  append(name: string, value: string | FallbackBlob, filename?: string): void {
    this.#entries.push([name, typeof value === 'string' ? value : value, filename]);
  }
  set(name: string, value: string | FallbackBlob, filename?: string): void {
    this.delete(name);
    this.append(name, value, filename);
  }
  delete(name: string): void {
    for (let i = this.#entries.length - 1; i >= 0; i--) if (this.#entries[i]![0] === name) this.#entries.splice(i, 1);
  }
  get(name: string): string | FallbackBlob | null {
    return this.#entries.find((entry) => entry[0] === name)?.[1] ?? null;
  }
  getAll(name: string): Array<string | FallbackBlob> {
    return this.#entries.filter((entry) => entry[0] === name).map((entry) => entry[1]);
  }
  has(name: string): boolean {
    return this.#entries.some((entry) => entry[0] === name);
  }
  *entries(): IterableIterator<[string, string | FallbackBlob]> {
    for (const [name, value] of this.#entries) yield [name, value];
  }
  [Symbol.iterator](): IterableIterator<[string, string | FallbackBlob]> {
    return this.entries();
  }
  /** The multipart body and its Content-Type. */
  _encode(): { bytes: Buffer; type: string } {
    const boundary = `----cloudfn${Math.random().toString(16).slice(2)}${Date.now().toString(16)}`;
    const chunks: Buffer[] = [];
    for (const [name, value, filename] of this.#entries) {
      const escaped = name.replace(/"/g, '%22').replace(/\r?\n/g, '%0A');
      if (typeof value === 'string') {
        chunks.push(
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${escaped}"\r\n\r\n${value}\r\n`),
        );
      } else {
        const file = (filename ?? 'blob').replace(/"/g, '%22');
        chunks.push(
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${escaped}"; filename="${file}"\r\nContent-Type: ${value.type || 'application/octet-stream'}\r\n\r\n`,
          ),
          value._bytes(),
          Buffer.from('\r\n'),
        );
      }
    }
    chunks.push(Buffer.from(`--${boundary}--\r\n`));
    return { bytes: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
  }
}
