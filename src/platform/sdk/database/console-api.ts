/**
 * The dev console's writes to the database stand-in, under `${CLOUDFN_PREFIX}/api/database`: add,
 * replace and delete a document, clear a collection, export, import and reset the store. Bodies
 * are JSON with dates as `{"$date": …}` (as the console shows them), checked as an import is
 * (dump.ts), and written under the store's lock. Reading stays in the console's routes (browse.ts).
 *
 * | method and path (under ${CLOUDFN_PREFIX}/api/database) | what it does |
 * |---|---|
 * | `GET /export` | the store as `cloudfn db export` writes it |
 * | `POST /import[?merge=1]` | `cloudfn db import` of the body |
 * | `DELETE ` (the root) | `cloudfn db reset` |
 * | `POST /collections/<name>` | adds the body as a document (201 `{ _id }`) |
 * | `PUT /collections/<name>/<id>` | replaces (or creates) the document `<id>` with the body |
 * | `DELETE /collections/<name>/<id>` | removes the document |
 * | `DELETE /collections/<name>` | removes every document of the collection |
 */
import { CLOUDFN_PREFIX } from '../../../../runtime/options.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody } from '../../../../runtime/request/error-body.js';
import { generateLogid } from '../../../../runtime/log/logid.js';
import { readBodyUpTo, sendJsonText } from '../../../../runtime/serve/hook-io.js';
import { PlatformError, platformError } from '../../errors.js';
import { dateReviver, DocumentStore, type StoredDoc } from '../store.js';
import { checkDump, exportStore, formatDump, importStore, resetStore } from './dump.js';

/** The most a body may carry (an import of a whole store). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** The console's path of the database API. */
const ROOT = `${CLOUDFN_PREFIX}/api/database`;

/**
 * Whether `method` on `path` is one of these writes (GET of the root stays with the console's reader).
 * @example isDatabaseWrite('POST', `${CLOUDFN_PREFIX}/api/database/import`) // true
 */
export function isDatabaseWrite(method: string, path: string): boolean {
  return path.startsWith(`${ROOT}/`) || (path === ROOT && method !== 'GET' && method !== 'HEAD');
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  sendJsonText(res, status, body, { headers });
}

function fail(res: ServerResponse, error: unknown): void {
  const known = error instanceof PlatformError;
  const code = known ? error.code : 'PLATFORM_INTERNAL';
  const message = known ? error.message : platformError('PLATFORM_INTERNAL', String(error)).message;
  send(res, known ? error.status : 500, errorBody(code, message, generateLogid()));
}

/** The body as JSON (dates revived from `{ $date }`), at most MAX_BODY_BYTES. */
async function readJson(req: IncomingMessage, what: string): Promise<unknown> {
  const body = await readBodyUpTo(req, MAX_BODY_BYTES);
  if (body === undefined) throw platformError('PLATFORM_BODY_TOO_LARGE', MAX_BODY_BYTES);
  try {
    return JSON.parse(body.toString('utf8'), dateReviver);
  } catch (error) {
    throw platformError('PLATFORM_DB_BAD_DUMP', what, `not JSON (${(error as Error).message})`);
  }
}

/** One document of a body, checked as an import checks it. */
function oneDocument(collection: string, doc: unknown, what: string): StoredDoc {
  return checkDump({ [collection]: [doc] }, what)[collection]![0]!;
}

async function route(req: IncomingMessage, res: ServerResponse, dataDir: string, url: URL): Promise<void> {
  const method = req.method ?? 'GET';
  const parts = url.pathname.slice(ROOT.length).split('/').filter(Boolean).map(decodeURIComponent);
  const store = new DocumentStore(dataDir);
  const notFound = (): never => {
    throw platformError('PLATFORM_DB_API_NOT_FOUND', method, url.pathname);
  };
  const json = (value: unknown, status = 200): void => send(res, status, JSON.stringify(value));

  if (parts.length === 0) {
    if (method !== 'DELETE') notFound();
    return json(await resetStore(dataDir));
  }
  if (parts[0] === 'export' && parts.length === 1) {
    if (method !== 'GET') notFound();
    return send(res, 200, formatDump(await exportStore(dataDir)), {
      'content-disposition': 'attachment; filename="cloudfn-database.json"',
    });
  }
  if (parts[0] === 'import' && parts.length === 1) {
    if (method !== 'POST') notFound();
    const dump = checkDump(await readJson(req, 'the imported file'), 'the imported file');
    return json(await importStore(dataDir, dump, { merge: url.searchParams.get('merge') === '1' }));
  }
  if (parts[0] !== 'collections' || parts.length < 2 || parts.length > 3) return notFound();
  const collection = parts[1]!;
  const id = parts[2];
  if (id === undefined && method === 'POST') {
    const doc = oneDocument(collection, await readJson(req, 'the new document'), 'the new document');
    await store.change(collection, (docs) => {
      if (docs.some((d) => d._id === doc._id)) throw platformError('PLATFORM_DB_DOC_EXISTS', collection, doc._id);
      return { docs: [...docs, doc], result: undefined };
    });
    return json({ _id: doc._id }, 201);
  }
  if (id === undefined && method === 'DELETE') {
    const count = await store.change(collection, (docs) => ({ docs: [], result: docs.length }));
    return json({ name: collection, deleted: count });
  }
  if (id !== undefined && method === 'PUT') {
    const what = `the document ${JSON.stringify(id)}`;
    const body = await readJson(req, what);
    const given = (body as { _id?: unknown } | null)?._id;
    if (given !== undefined && given !== id)
      throw platformError(
        'PLATFORM_DB_BAD_DUMP',
        what,
        `_id cannot change (the body has _id ${JSON.stringify(given)})`,
      );
    const doc = oneDocument(collection, { ...(body as object), _id: id }, what);
    const created = await store.change(collection, (docs) => {
      const at = docs.findIndex((d) => d._id === id);
      if (at === -1) return { docs: [...docs, doc], result: true };
      docs[at] = doc;
      return { docs, result: false };
    });
    return json({ _id: id, created }, created ? 201 : 200);
  }
  if (id !== undefined && method === 'DELETE') {
    const deleted = await store.change(collection, (docs) => {
      const kept = docs.filter((d) => d._id !== id);
      return { docs: kept.length < docs.length ? kept : undefined, result: docs.length - kept.length };
    });
    return json({ deleted });
  }
  return notFound();
}

/**
 * Answers one of the console's database writes for the store in `dataDir`.
 * @example if (isDatabaseWrite(req.method, path)) return handleDatabaseWrite(req, res, readSdkOptions().dataDir)
 */
export function handleDatabaseWrite(req: IncomingMessage, res: ServerResponse, dataDir: string): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  route(req, res, dataDir, url).catch((error: unknown) => fail(res, error));
}
