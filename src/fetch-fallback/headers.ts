/**
 * A `Headers` where the global one is missing (Node 14): lower-case names, `get` joining
 * repeated values with ", ", `getSetCookie` keeping each Set-Cookie apart, as fetch's does.
 */

/** Header names are case-insensitive: stored lower case, values in the order added. */
export class FallbackHeaders {
  readonly #values = new Map<string, string[]>();
  constructor(init?: Record<string, string | readonly string[] | undefined> | Iterable<readonly [string, string]>) {
    if (init === undefined) return;
    if (Symbol.iterator in Object(init)) {
      for (const [name, value] of init as Iterable<readonly [string, string]>) this.append(name, value);
      return;
    }
    for (const [name, value] of Object.entries(init as Record<string, string | readonly string[] | undefined>)) {
      if (value === undefined) continue;
      for (const one of typeof value === 'string' ? [value] : value) this.append(name, one);
    }
  }
  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const list = this.#values.get(key);
    if (list === undefined) this.#values.set(key, [String(value)]);
    else list.push(String(value));
  }
  set(name: string, value: string): void {
    this.#values.set(name.toLowerCase(), [String(value)]);
  }
  delete(name: string): void {
    this.#values.delete(name.toLowerCase());
  }
  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }
  get(name: string): string | null {
    const list = this.#values.get(name.toLowerCase());
    return list === undefined ? null : list.join(', ');
  }
  getSetCookie(): string[] {
    return [...(this.#values.get('set-cookie') ?? [])];
  }
  forEach(callback: (value: string, name: string) => void): void {
    for (const [name, list] of [...this.#values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      callback(list.join(', '), name);
  }
  *entries(): IterableIterator<[string, string]> {
    for (const [name, list] of this.#values) yield [name, list.join(', ')];
  }
  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }
  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/**
 * A new Headers: the global class when the runtime has it, the fallback otherwise.
 * @example const headers = createHeaders({ 'content-type': 'application/json' })
 */
export function createHeaders(init?: Record<string, string>): Headers {
  if (typeof globalThis.Headers === 'function') return new Headers(init);
  // The fallback has every member cloudfn's clients use.
  return new FallbackHeaders(init) as unknown as Headers;
}
