/**
 * multipart/form-data bodies, parsed by busboy from the Buffer already read. busboy
 * truncates silently when a limit is hit; here every limit becomes CLOUDFN_MULTIPART_LIMIT
 * (413) naming it, so a handler never receives a cut file or field.
 *
 * Large parts skip busboy's byte-by-byte search: their content (found by the scan's
 * Buffer#indexOf) is swapped for a short token before busboy reads the body, and a file whose
 * data is a token gets the real bytes as a view of the body, without a copy. busboy still reads
 * every header and counts every part. On the 8 MiB upload benchmark this took cloudfn from
 * 0.3x to 0.68-0.77x of a raw server that only reads the body (busboy's search was 40% of the
 * CPU, the copy of the file 10%). When a swapped part does not come back as a named file (a
 * huge text field, whose text needs busboy's decoding), the parse starts again on the
 * original body, so the result is always what busboy alone would give.
 */
import { randomBytes } from 'node:crypto';
import busboy from 'busboy';
import type { FileInfo, FieldInfo } from 'busboy';
import type { Readable } from 'node:stream';
import type { CloudfnError } from '../errors.js';
import { limitSource } from './limit-sources.js';
import type { Limits, MultipartParams, UploadFile, LimitSources } from '../types.js';
import { contentTypeParam } from './content-type.js';
import { scanMultipart, type PartRange } from './multipart-scan.js';
import { nullObject } from './null-object.js';
import { isPoisonKey, showValue } from './poison.js';
import { createMultipartError } from './multipart-errors.js';

/**
 * Parses a multipart/form-data body into a null-prototype object: plain fields are strings
 * (a repeated field gives an array of strings in order), file parts are `UploadFile`s (a
 * repeated file key keeps the later file). When one key mixes files and fields, a file
 * replaces what came before it and a field after a file starts over. An empty file input (no filename, no bytes) and a part without a
 * name are left out; keys `__proto__`, `constructor`, `prototype` are dropped. An empty
 * body gives `{}`.
 * Rejects with CLOUDFN_MULTIPART_LIMIT (413) naming the limit, or CLOUDFN_BAD_MULTIPART
 * (400) for a missing boundary, a truncated body or a malformed part.
 * @example const form = await parseMultipart(req.headers['content-type'], body, limits);
 */
export function parseMultipart(
  contentType: string,
  body: Buffer,
  limits: Limits,
  sources?: LimitSources,
): Promise<MultipartParams> {
  return parseMultipartWith(contentType, body, limits, { skipLargeParts: true, sources });
}

/** Options of `parseMultipartWith`. */
export interface MultipartOptions {
  /** Hand large parts' contents around busboy instead of through it. */
  skipLargeParts: boolean;
  /** Where each limit was set, named in 413 messages. @default the global option */
  sources?: LimitSources | undefined;
}

/**
 * `parseMultipart` with the large-part shortcut on or off; off reads every byte through
 * busboy (the tests compare the two).
 */
export function parseMultipartWith(
  contentType: string,
  body: Buffer,
  limits: Limits,
  options: MultipartOptions,
): Promise<MultipartParams> {
  const { skipLargeParts, sources } = options;
  const boundary = contentTypeParam(contentType, 'boundary');
  if (boundary === undefined || boundary === '') {
    return Promise.reject(
      createMultipartError(
        'CLOUDFN_BAD_MULTIPART',
        'the Content-Type has no boundary; send multipart/form-data; boundary=<the delimiter used in the body>',
      ),
    );
  }
  if (body.length === 0) return Promise.resolve(nullObject<MultipartParams>());
  let scan = scanMultipart(body, boundary, limits, sources);
  if (scan.error !== undefined) return Promise.reject(scan.error);
  if (scan.emptyFilenames.length > 0) {
    // busboy reads `filename=""` as no file name and the part as a text field: name the file
    // with a token it keeps, given back as '' (onFile). Rare, so a copy and a second scan.
    scan = scanMultipart(markEmptyFilenames(scan.body, scan.emptyFilenames), boundary, limits, sources);
    if (scan.error !== undefined) return Promise.reject(scan.error);
  }
  const whole = scan.body;
  if (!skipLargeParts || scan.large.length === 0) {
    return new Promise<MultipartParams>((resolve, reject) =>
      new MultipartReader(limits, sources, resolve, reject, undefined).run(contentType, whole),
    );
  }
  const swap = swapLargeParts(whole, scan.large);
  return new Promise<MultipartParams>((resolve, reject) => {
    const retry = (): void => new MultipartReader(limits, sources, resolve, reject, undefined).run(contentType, whole);
    new MultipartReader(limits, sources, resolve, reject, { contents: swap.contents, retry }).run(
      contentType,
      swap.body,
    );
  });
}

/** Unguessable from outside the process, so a client cannot send a part that reads as a token. */
const TOKEN_PREFIX = `cloudfn-part-${randomBytes(12).toString('hex')}-`;

/** Stands for `filename=""` while busboy reads the body (see parseMultipartWith). */
const EMPTY_FILENAME = `${TOKEN_PREFIX}empty`;

/** The body with each `""` of a `filename=""` replaced by the quoted EMPTY_FILENAME. */
function markEmptyFilenames(body: Buffer, empty: readonly PartRange[]): Buffer {
  const pieces: Buffer[] = [];
  const mark = Buffer.from(`"${EMPTY_FILENAME}"`, 'latin1');
  let from = 0;
  for (const { start, end } of empty) {
    pieces.push(body.subarray(from, start), mark);
    from = end;
  }
  pieces.push(body.subarray(from));
  return Buffer.concat(pieces);
}

/**
 * A field or file name as the user chose it: browsers send `"`, CR and LF in names as `%22`,
 * `%0D` and `%0A` (HTML's multipart/form-data encoding), and WHATWG's `formData()` decodes
 * them; other `%` sequences are left as sent, as browsers do not escape `%` itself.
 */
function decodeName(name: string): string {
  if (!name.includes('%')) return name;
  return name.replace(/%(22|0d|0a)/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** The body with each large part's content replaced by a token, and the real content by token. */
function swapLargeParts(body: Buffer, large: readonly PartRange[]): { body: Buffer; contents: Map<string, Buffer> } {
  const contents = new Map<string, Buffer>();
  const pieces: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < large.length; i++) {
    const { start, end } = large[i]!;
    const token = TOKEN_PREFIX + i;
    contents.set(token, body.subarray(start, end));
    pieces.push(body.subarray(from, start), Buffer.from(token, 'latin1'));
    from = end;
  }
  pieces.push(body.subarray(from));
  return { body: Buffer.concat(pieces), contents };
}

/** What a reader needs to put swapped contents back, and to start over when it cannot. */
interface Swapped {
  readonly contents: Map<string, Buffer>;
  readonly retry: () => void;
}

/** A part in the order it arrived; a file's content is filled in when its stream ends. */
interface Entry {
  readonly name: string;
  value: string | UploadFile | undefined;
}

/**
 * One parse; every event after the first failure is ignored. File streams end after the
 * parts that follow them are announced, so parts are kept in order and the result is built
 * once busboy closes.
 */
class MultipartReader {
  private readonly entries: Entry[] = [];
  private settled = false;
  /** Swapped parts given back their real content. */
  private restored = 0;
  constructor(
    private readonly limits: Limits,
    private readonly sources: LimitSources | undefined,
    private readonly resolve: (value: MultipartParams) => void,
    private readonly reject: (error: CloudfnError) => void,
    private readonly swapped: Swapped | undefined,
  ) {}

  run(contentType: string, body: Buffer): void {
    const limits = this.limits;
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        // busboy reports a size limit when a part reaches it, not when it passes it: +1 lets
        // a file of exactly maxFileSize through. Parts are counted when they end, so +1 too.
        limits: {
          fileSize: limits.maxFileSize + 1,
          fieldSize: limits.maxFieldSize + 1,
          files: limits.maxFiles,
          fields: limits.maxFields,
          parts: limits.maxParts + 1,
        },
        // Browsers send UTF-8 file and field names; busboy's default would read them as latin1.
        defParamCharset: 'utf8',
      });
    } catch (error) {
      this.fail(createMultipartError('CLOUDFN_BAD_MULTIPART', (error as Error).message));
      return;
    }
    parser.on('field', (name: string | undefined, value: unknown, info: FieldInfo) => this.onField(name, value, info));
    parser.on('file', (name: string | undefined, stream: Readable, info: FileInfo) => this.onFile(name, stream, info));
    parser.on('filesLimit', () => this.failLimit('maxFiles', limits.maxFiles));
    parser.on('fieldsLimit', () => this.failLimit('maxFields', limits.maxFields));
    parser.on('partsLimit', () => this.failLimit('maxParts', limits.maxParts));
    parser.on('error', (error: Error) => this.fail(createMultipartError('CLOUDFN_BAD_MULTIPART', error.message)));
    // 'close' follows 'finish', which busboy delays until every file stream has ended.
    parser.on('close', () => this.done());
    parser.end(body);
    // busboy works on the in-memory body through process.nextTick and stream callbacks only,
    // which all run before the next setImmediate: a parse still open then is stalled (a
    // busboy bug like the one scanMultipart works around), and the request must not hang.
    // The error (and its stack) is made only then: a parse that ended needs none.
    setImmediate(() => {
      if (!this.settled)
        this.fail(
          createMultipartError('CLOUDFN_BAD_MULTIPART', 'the parts could not be read to the end; check the delimiters'),
        );
    });
  }

  private onField(name: string | undefined, value: unknown, info: FieldInfo): void {
    if (this.settled) return;
    if (info.valueTruncated) return this.failLimit('maxFieldSize', this.limits.maxFieldSize);
    if (typeof value !== 'string') {
      // busboy gives undefined for a part charset it cannot decode.
      return this.fail(
        createMultipartError(
          'CLOUDFN_BAD_MULTIPART',
          `the field ${showValue(name ?? '')} has a charset that cannot be decoded; send it as utf-8`,
        ),
      );
    }
    if (name === undefined) return;
    const key = decodeName(name);
    if (isPoisonKey(key)) return;
    this.entries.push({ name: key, value });
  }

  private onFile(name: string | undefined, stream: Readable, info: FileInfo): void {
    const key = name === undefined ? undefined : decodeName(name);
    const entry: Entry | undefined =
      key === undefined || isPoisonKey(key) ? undefined : { name: key, value: undefined };
    if (entry !== undefined) this.entries.push(entry);
    const chunks: Buffer[] = [];
    let size = 0;
    // Without an 'error' listener, a stream error (a body cut inside a file) kills the process.
    stream.on('error', (error: Error) => this.fail(createMultipartError('CLOUDFN_BAD_MULTIPART', error.message)));
    stream.on('limit', () => this.failLimit('maxFileSize', this.limits.maxFileSize));
    // Reading continues after a failure so that busboy can finish and release the body.
    stream.on('data', (chunk: Buffer) => {
      if (this.settled || entry === undefined) return;
      chunks.push(chunk);
      size += chunk.length;
    });
    stream.on('end', () => {
      if (this.settled || entry === undefined) return;
      const filename = info.filename === undefined || info.filename === EMPTY_FILENAME ? '' : decodeName(info.filename);
      if (filename === '' && size === 0) return; // an <input type=file> left empty
      let buffer = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
      const real =
        this.swapped === undefined || size > 64 ? undefined : this.swapped.contents.get(buffer.toString('latin1'));
      if (real !== undefined) {
        if (real.length > this.limits.maxFileSize) return this.failLimit('maxFileSize', this.limits.maxFileSize);
        this.restored++;
        buffer = real;
        size = real.length;
      }
      entry.value = { name: filename, type: info.mimeType, size, buffer };
    });
  }

  private failLimit(limit: keyof Limits, value: number): void {
    this.fail(createMultipartError('CLOUDFN_MULTIPART_LIMIT', limit, value, limitSource(this.sources, limit)));
  }

  private fail(error: CloudfnError): void {
    if (this.settled) return;
    this.settled = true;
    this.entries.length = 0;
    this.reject(error);
  }

  private done(): void {
    if (this.settled) return;
    this.settled = true;
    if (this.swapped !== undefined && this.restored !== this.swapped.contents.size) {
      // A swapped part did not come back as a named file (a large text field needs busboy's
      // decoding, a nameless part is dropped): read the original body instead.
      this.entries.length = 0;
      return this.swapped.retry();
    }
    this.resolve(collect(this.entries));
  }
}

/** Fields of one key gather into an array; a file replaces what came before under its key. */
function collect(entries: readonly Entry[]): MultipartParams {
  const result = nullObject<MultipartParams>();
  for (const { name, value } of entries) {
    if (value === undefined) continue;
    const previous = result[name];
    if (
      typeof value !== 'string' ||
      previous === undefined ||
      !(typeof previous === 'string' || Array.isArray(previous))
    ) {
      result[name] = value;
    } else if (typeof previous === 'string') {
      result[name] = [previous, value];
    } else {
      previous.push(value);
    }
  }
  return result;
}
