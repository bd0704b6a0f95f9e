/**
 * The few APIs newer than Node 14 that cloudfn's own code calls, defined when missing, for
 * files built with `--target function-service` (the platform's function service runs Node 14).
 * esbuild lowers syntax; these are the library calls it cannot lower. Each is defined only when
 * absent, so a newer runtime keeps its own.
 */
const objectWithHasOwn = Object as { hasOwn?: (object: object, key: PropertyKey) => boolean };
if (typeof objectWithHasOwn.hasOwn !== 'function') {
  Object.defineProperty(Object, 'hasOwn', {
    configurable: true,
    writable: true,
    // biome-ignore lint/suspicious/noPrototypeBuiltins: this defines Object.hasOwn, so it cannot call it
    value: (object: object, key: PropertyKey): boolean => Object.prototype.hasOwnProperty.call(object, key),
  });
}

const arrayWithAt = Array.prototype as { at?: unknown };
if (typeof arrayWithAt.at !== 'function') {
  Object.defineProperty(Array.prototype, 'at', {
    configurable: true,
    writable: true,
    value(this: unknown[], index: number): unknown {
      const i = Math.trunc(index) || 0;
      return this[i < 0 ? this.length + i : i];
    },
  });
}

export {};
