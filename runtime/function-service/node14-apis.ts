/**
 * The APIs newer than Node 14 that cloudfn's own code and a function's code may call, defined
 * when missing, for files built with `--target function-service` (the platform's function
 * service runs Node 14). esbuild lowers syntax; these are the library calls it cannot lower:
 * `Object.hasOwn`, `Array.prototype.at`, `findLast`, `findLastIndex`, `String.prototype.at`,
 * `replaceAll`, `structuredClone` (node:v8's serializer, which is the structured clone algorithm
 * of Node's own `structuredClone`), `performance` (node:perf_hooks) and `process.getBuiltinModule`
 * (Node 20.16), through which the runtime takes its builtins at load (require, on Node 14). Each is defined only when
 * absent, so a newer runtime keeps its own. `fetch` and its classes are larger, and come only
 * with the files that use them (src/build/function-service/node14-globals.ts).
 */
import { createRequire } from 'node:module';
import { performance as perfHooksPerformance } from 'node:perf_hooks';
import { deserialize, serialize } from 'node:v8';

/** Defines `name` on `target` as a method, when it has none. */
function define(target: object, name: string, value: unknown): void {
  if ((target as Record<string, unknown>)[name] !== undefined) return;
  Object.defineProperty(target, name, { configurable: true, writable: true, value });
}
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

define(String.prototype, 'at', function (this: string, index: number): string | undefined {
  const s = String(this);
  const i = Math.trunc(index) || 0;
  return s[i < 0 ? s.length + i : i];
});

define(
  String.prototype,
  'replaceAll',
  function (
    this: string,
    search: string | RegExp,
    replacement: string | ((match: string, ...args: unknown[]) => string),
  ): string {
    if (search instanceof RegExp && !search.global)
      throw new TypeError('replaceAll must be called with a global RegExp');
    // A string is matched as written: escaped into a global RegExp, whose replace then reads the
    // replacement patterns ($&, $$) and calls a function replacement as replaceAll does.
    const pattern =
      search instanceof RegExp ? search : new RegExp(String(search).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g');
    return String(this).replace(pattern, replacement as string);
  },
);

define(Array.prototype, 'findLast', function <
  T,
>(this: T[], predicate: (value: T, index: number, array: T[]) => unknown, thisArg?: unknown): T | undefined {
  for (let i = this.length - 1; i >= 0; i--) if (predicate.call(thisArg, this[i]!, i, this)) return this[i];
  return undefined;
});

define(Array.prototype, 'findLastIndex', function <
  T,
>(this: T[], predicate: (value: T, index: number, array: T[]) => unknown, thisArg?: unknown): number {
  for (let i = this.length - 1; i >= 0; i--) if (predicate.call(thisArg, this[i]!, i, this)) return i;
  return -1;
});

define(globalThis, 'structuredClone', (value: unknown): unknown => deserialize(serialize(value)));

define(globalThis, 'performance', perfHooksPerformance);

// The runtime takes node:http and the like through process.getBuiltinModule when its modules
// load; the file's entry requires this module before the function's (function-service/entry.ts).
// A require made from any path resolves a builtin, `node:` ids included (Node 14.18+).
define(process, 'getBuiltinModule', createRequire(`${process.cwd()}/`));
