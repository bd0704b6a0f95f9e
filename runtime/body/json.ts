/**
 * JSON bodies: decoded by charset, parsed with JSON.parse, errors located by line and
 * column, and keys that could reach a prototype (`__proto__`, `constructor.prototype`)
 * refused or removed. The locator of errors (json-error.ts) is imported on the first body that
 * fails to parse: in a bundle it is a chunk read then, not at start-up (issue 44).
 */
import { type CloudfnError, createError } from '../errors.js';
import { LazyImport } from '../lazy-import.js';
import { charsetName, decodeText } from './decode-text.js';

/**
 * The locator of JSON syntax errors, imported on the first body that does not parse; the
 * bodies that fail after it loaded are refused synchronously.
 */
export const jsonErrorLocator = new LazyImport(() => import('./json-error.js'));

/**
 * What to do with a `__proto__` or `constructor.prototype` key: `'error'` refuses the body
 * with CLOUDFN_POISONED_JSON (400), `'remove'` deletes the key and keeps the rest.
 * @default 'error'
 */
export type ProtoAction = 'error' | 'remove';

/**
 * Parses a JSON body. An empty (or whitespace-only) body gives `{}`. Malformed JSON throws
 * CLOUDFN_BAD_JSON (400) saying where, or, while the locator of errors is not loaded yet,
 * returns a Promise rejected with that error once it is (`parseBody` may return a Promise);
 * bytes invalid in the charset throw CLOUDFN_BAD_JSON; an unknown charset throws
 * CLOUDFN_BAD_CHARSET (415).
 * @example parseJson(Buffer.from('{"a":1}'), undefined, 'error') // { a: 1 }
 */
export function parseJson(body: Buffer, charset: string | undefined, protoAction: ProtoAction): unknown {
  if (body.length === 0) return {};
  const text = decodeText(body, charset);
  if (text === undefined) {
    const name = charsetName(charset);
    throw createError(
      'CLOUDFN_BAD_JSON',
      `the bytes are not valid ${name}; send ${name} or name the body's charset in Content-Type`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (text.trim() === '') return {};
    const locator = jsonErrorLocator.value;
    if (locator !== undefined) throw badJson(locator, text, error);
    // A locator that cannot load (a chunk missing from a deployed folder) leaves V8's message.
    return jsonErrorLocator.load().then(
      (loaded) => Promise.reject(badJson(loaded, text, error)),
      () => Promise.reject(badJson(undefined, text, error)),
    );
  }
  // Walking the value costs as much as parsing it, so it runs only when the text could
  // hold a poisoned key: spelled out, or hidden behind a \u escape.
  if (typeof value === 'object' && value !== null && mayHoldPoison(text)) {
    const key = removePoison(value, protoAction === 'remove');
    if (key !== undefined) throw createError('CLOUDFN_POISONED_JSON', key);
  }
  return value;
}

/** CLOUDFN_BAD_JSON for `text`, saying where it goes wrong (else V8's own message). */
function badJson(locator: typeof import('./json-error.js') | undefined, text: string, error: unknown): CloudfnError {
  return createError('CLOUDFN_BAD_JSON', locator?.describeJsonError(text) ?? (error as Error).message);
}

function mayHoldPoison(text: string): boolean {
  return text.includes('__proto__') || text.includes('constructor') || text.includes('\\u');
}

/**
 * Walks `root` without recursion; returns the first poisoned key found when `remove` is
 * false, otherwise deletes every such key and returns undefined.
 */
function removePoison(root: object, remove: boolean): string | undefined {
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
