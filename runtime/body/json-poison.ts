/**
 * The keys of a parsed JSON body that could reach a prototype (`__proto__`,
 * `constructor.prototype`): found, or removed. json.ts imports this file on the first body
 * whose text may hold one (spelled out, or behind a \u escape): a bundle's start-up does not
 * read it (issue 44).
 */

/**
 * Walks `root` without recursion; returns the first poisoned key found when `remove` is
 * false, otherwise deletes every such key and returns undefined.
 */
export function removePoison(root: object, remove: boolean): string | undefined {
  const stack: object[] = [root];
  for (let value = stack.pop(); value !== undefined; value = stack.pop()) {
    if (Array.isArray(value)) {
      for (const item of value as unknown[]) if (typeof item === 'object' && item !== null) stack.push(item);
      continue;
    }
    const record = value as Record<string, unknown>;
    if (Object.hasOwn(record, '__proto__')) {
      if (!remove) return '__proto__';
      // biome-ignore lint/suspicious/noProto: removing the poisoned key is the point
      delete record['__proto__'];
    }
    if (Object.hasOwn(record, 'constructor')) {
      const ctor = record['constructor'];
      if (typeof ctor === 'object' && ctor !== null && Object.hasOwn(ctor, 'prototype')) {
        if (!remove) return 'constructor.prototype';
        delete record['constructor'];
      }
    }
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (typeof item === 'object' && item !== null) stack.push(item);
    }
  }
  return undefined;
}
