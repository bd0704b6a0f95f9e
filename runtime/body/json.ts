/**
 * JSON bodies: decoded by charset, parsed with JSON.parse, errors located by line and
 * column, and keys that could reach a prototype (`__proto__`, `constructor.prototype`)
 * refused or removed. The locator of errors (json-error.ts) is imported on the first body that
 * fails to parse, the walk for poisoned keys (json-poison.ts) on the first that may hold one:
 * in a bundle they are chunks read then, not at start-up (issue 44).
 */
import { type CloudfnError, createError } from '../errors.js';
import { LazyImport } from '../lazy-import.js';
import { charsetName, decodeText } from './decode-text.js';

/**
 * The locator of JSON syntax errors, imported on the first body that does not parse; the
 * bodies that fail after it loaded are refused synchronously.
 */
export const jsonErrorLocator = new LazyImport(() => import('./json-error.js'));

/** The walk that finds and removes poisoned keys, imported on the first body that may hold one. */
export const poisonWalk = new LazyImport(() => import('./json-poison.js'));

/**
 * What to do with a `__proto__` or `constructor.prototype` key: `'error'` refuses the body
 * with CLOUDFN_POISONED_JSON (400), `'remove'` deletes the key and keeps the rest.
 * @default 'error'
 */
export type ProtoAction = 'error' | 'remove';

/**
 * Parses a JSON body. An empty (or whitespace-only) body gives `{}`. Malformed JSON throws
 * CLOUDFN_BAD_JSON (400) saying where, or, while the locator of errors is not loaded yet,
 * returns a Promise rejected with that error once it is (`parseBody` may return a Promise); a
 * body that may hold a poisoned key before the walk has loaded gives a Promise of its value;
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
  // The walk (json-poison.ts) is imported on the first such body, which waits for it; a walk
  // that cannot load refuses the body with its error (a 500) rather than pass it unchecked.
  if (typeof value === 'object' && value !== null && mayHoldPoison(text)) {
    const remove = protoAction === 'remove';
    const walk = poisonWalk.value;
    if (walk !== undefined) return checked(walk, value, remove);
    return poisonWalk.load().then((loaded) => checked(loaded, value, remove));
  }
  return value;
}

/** `value` with its poisoned keys removed, or CLOUDFN_POISONED_JSON thrown for the first. */
function checked(walk: typeof import('./json-poison.js'), value: object, remove: boolean): unknown {
  const key = walk.removePoison(value, remove);
  if (key !== undefined) throw createError('CLOUDFN_POISONED_JSON', key);
  return value;
}

/** CLOUDFN_BAD_JSON for `text`, saying where it goes wrong (else V8's own message). */
function badJson(locator: typeof import('./json-error.js') | undefined, text: string, error: unknown): CloudfnError {
  return createError('CLOUDFN_BAD_JSON', locator?.describeJsonError(text) ?? (error as Error).message);
}

function mayHoldPoison(text: string): boolean {
  return text.includes('__proto__') || text.includes('constructor') || text.includes('\\u');
}
