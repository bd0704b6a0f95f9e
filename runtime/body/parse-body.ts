/**
 * From a body and its Content-Type to params (docs/platform-contract.md#params).
 * JSON, urlencoded and text answer synchronously so the hot path pays no microtask; multipart
 * returns a Promise, and so do the first urlencoded body (form.ts is imported then), the first
 * malformed JSON body and the first that may hold a poisoned key (json.ts). The multipart
 * parser (and busboy under it) is imported on the first multipart body: in a bundle it is a
 * chunk read then, not at start-up (about 28 kB of the 81 kB the minified hello bundle
 * compiled at start before).
 */
import type { Limits, QueryParams, LimitSources } from '../types.js';
import { createError } from '../errors.js';
import { LazyImport } from '../lazy-import.js';
import { contentTypeParam, mediaType } from './content-type.js';
import { charsetName, decodeText } from './decode-text.js';
import { parseJson, type ProtoAction } from './json.js';
import { nullObject } from './null-object.js';

/**
 * The multipart parser, imported on the first multipart body and read synchronously after:
 * an `import()` per request resolves its specifier again each time, which on Node 24 showed
 * in a profile of the 8 MiB upload (package scope lookups, a Promise and a tick per body).
 */
const multipart = new LazyImport(() => import('./multipart.js'));

/** The urlencoded body's parser (form.ts), imported on the first such body and read synchronously after. */
export const formParser = new LazyImport(() => import('./form.js'));

/** Options of `parseBody`. */
export interface ParseBodyOptions {
  /** What a `__proto__` or `constructor.prototype` key in a JSON body does. @default 'error' */
  protoAction: ProtoAction;
}

/**
 * Reads bodies into params for one app. It remembers the last Content-Type it read:
 * consecutive requests mostly send the same header, and its media type and charset are then
 * read once, a string comparison instead of a slice, a trim, a lower-casing and a parameter
 * scan per request (0.1-0.2 µs). The memory is per parser, not per module, so two apps in one
 * process do not share it.
 */
export class BodyParser {
  #header: string | undefined = undefined;
  #type = '';
  #charsetRead = true;
  #charset: string | undefined = undefined;

  /**
   * Turns a request body into params by its Content-Type:
   * `application/json` and `*\/*+json` → the parsed JSON (`{}` when empty);
   * `application/x-www-form-urlencoded` → a null-prototype object (repeated keys → arrays);
   * `text/plain` → a string decoded by its charset (`''` when empty);
   * `multipart/form-data` → a Promise of fields and `UploadFile`s;
   * anything else, or no Content-Type → the Buffer itself.
   * Throws (or rejects with) a CloudfnError whose status is 400, 413 or 415: malformed JSON
   * rejects, rather than throws, while the locator of JSON errors is still loading (json.ts).
   * @example const params = await new BodyParser().parse(req.headers['content-type'], body, limits, { protoAction: 'error' });
   */
  parse(
    contentType: string | undefined,
    body: Buffer,
    limits: Limits,
    options: ParseBodyOptions,
    limitSources?: LimitSources,
  ): unknown {
    if (contentType !== this.#header) {
      this.#header = contentType;
      this.#type = mediaType(contentType);
      this.#charsetRead = false;
    }
    const type = this.#type;
    if (type === 'application/json' || (type.endsWith('+json') && type.includes('/'))) {
      return parseJson(body, this.#charsetOf(contentType), options.protoAction);
    }
    if (type === 'application/x-www-form-urlencoded') {
      if (body.length === 0) return nullObject<QueryParams>();
      const loaded = formParser.value;
      if (loaded !== undefined) return loaded.parseForm(body, limits.maxParams, limitSources?.maxParams);
      return formParser.load().then((m) => m.parseForm(body, limits.maxParams, limitSources?.maxParams));
    }
    if (type === 'text/plain') return parseText(body, this.#charsetOf(contentType));
    if (type === 'multipart/form-data') {
      const loaded = multipart.value;
      if (loaded !== undefined) return loaded.parseMultipart(contentType as string, body, limits, limitSources);
      return multipart.load().then((m) => m.parseMultipart(contentType as string, body, limits, limitSources));
    }
    return body;
  }

  #charsetOf(contentType: string | undefined): string | undefined {
    if (!this.#charsetRead) {
      this.#charsetRead = true;
      this.#charset = contentTypeParam(contentType, 'charset');
    }
    return this.#charset;
  }
}

/**
 * Turns one request body into params by its Content-Type (see `BodyParser.parse`).
 * @example const params = await parseBody(req.headers['content-type'], body, limits, { protoAction: 'error' });
 */
export function parseBody(
  contentType: string | undefined,
  body: Buffer,
  limits: Limits,
  options: ParseBodyOptions,
  limitSources?: LimitSources,
): unknown {
  return new BodyParser().parse(contentType, body, limits, options, limitSources);
}

function parseText(body: Buffer, charset: string | undefined): string {
  if (body.length === 0) return '';
  const text = decodeText(body, charset);
  if (text === undefined) throw createError('CLOUDFN_BAD_TEXT', charsetName(charset));
  return text;
}
