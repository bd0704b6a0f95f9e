/**
 * A package the runtime imports after start rather than with it, for what only some requests
 * need. In a bundle (`cloudfn build`) the package then sits in a chunk beside the entry, so
 * start-up does not read or compile it. The value is kept once loaded, so the request path
 * reads it synchronously; the requests that come before a load finished wait for it. The app
 * starts the cookie codec's load when it is created; raw-body loads on the first chunked body.
 * One per package per process, like the module system's own cache it stands in front of.
 */

/** A lazily imported package. */
export class LazyImport<T> {
  #value: T | undefined = undefined;
  #loading: Promise<T> | undefined = undefined;
  readonly #importer: () => Promise<T>;

  /** @param importer e.g. `() => import('cookie').then(commonJs)` */
  constructor(importer: () => Promise<T>) {
    this.#importer = importer;
  }

  /** The package once loaded (or provided), else undefined. */
  get value(): T | undefined {
    return this.#value;
  }

  /**
   * Starts the import (once) and resolves with the package.
   * @example const getRawBody = await rawBody.load()
   */
  load(): Promise<T> {
    this.#loading ??= this.#importer().then((value) => {
      this.#value = value;
      return value;
    });
    return this.#loading;
  }

  /**
   * Sets the package from code that imported it itself (test helpers that build a service
   * synchronously, without a server).
   */
  provide(value: T): void {
    this.#value ??= value;
  }
}

/**
 * The exports of a CommonJS package from a dynamic import: node gives them as names and as
 * `default`, a chunk of an esbuild bundle as `default` only.
 * @example import('cookie').then((m) => commonJs<typeof Cookie>(m))
 */
export function commonJs<T>(module: object): T {
  return ((module as { default?: T }).default ?? module) as T;
}
