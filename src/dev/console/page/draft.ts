/**
 * A request as the editor holds it, and how it becomes a `fetch` call. The platform's console
 * debugs GET with a query and POST with body, headers and content type; multipart with files
 * is ours (the platform's console lacks it).
 */

export type BodyType = 'json' | 'urlencoded' | 'text' | 'binary' | 'multipart';

/** A name/value line of the query, headers, form or multipart editor. */
export interface Row {
  name: string;
  value: string;
  enabled: boolean;
  /** Multipart only: a file part instead of a text field. */
  file?: FilePick | undefined;
  kind?: 'field' | 'file';
}

/** A chosen file. Kept as base64 so a history entry can replay it. */
export interface FilePick {
  name: string;
  type: string;
  size: number;
  base64: string;
}

export interface Draft {
  method: 'GET' | 'POST';
  path: string;
  query: Row[];
  headers: Row[];
  bodyType: BodyType;
  json: string;
  text: string;
  form: Row[];
  binaryMode: 'hex' | 'file';
  hex: string;
  binaryFile?: FilePick | undefined;
  parts: Row[];
}

export const CONTENT_TYPES: Record<BodyType, string | undefined> = {
  json: 'application/json',
  urlencoded: 'application/x-www-form-urlencoded',
  text: 'text/plain; charset=utf-8',
  binary: 'application/octet-stream',
  // The browser writes the boundary.
  multipart: undefined,
};

export function emptyRow(kind?: 'field' | 'file'): Row {
  return kind === undefined ? { name: '', value: '', enabled: true } : { name: '', value: '', enabled: true, kind };
}

/** A new draft for a function path. */
export function newDraft(path = '/'): Draft {
  return {
    method: 'GET',
    path,
    query: [emptyRow()],
    headers: [emptyRow()],
    bodyType: 'json',
    json: '{\n  \n}',
    text: '',
    form: [emptyRow()],
    binaryMode: 'hex',
    hex: '',
    parts: [emptyRow('field')],
  };
}

/** Reads a chosen file into a `FilePick`. */
export async function pickFile(file: File): Promise<FilePick> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  return {
    name: file.name,
    type: file.type || 'application/octet-stream',
    size: bytes.length,
    base64: toBase64(bytes),
  };
}

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Parses hex as typed: spaces, newlines, `0x` prefixes and `:` or `-` separators are ignored.
 * @example parseHex('de ad 0xbe:ef') // Uint8Array [0xde, 0xad, 0xbe, 0xef]
 */
export function parseHex(text: string): Uint8Array<ArrayBuffer> {
  const clean = text.replace(/0x/gi, '').replace(/[\s:,-]/g, '');
  const bad = /[^0-9a-f]/i.exec(clean);
  if (bad !== null) throw new Error(`hex may hold only 0-9 and a-f; found ${JSON.stringify(bad[0])}`);
  if (clean.length % 2 === 1) throw new Error(`hex needs two digits per byte; got ${clean.length} digits`);
  const bytes = new Uint8Array(clean.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(clean.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

function used(rows: Row[]): Row[] {
  return rows.filter((row) => row.enabled && row.name !== '');
}

/** The URL the draft asks for: its path with the query rows added. */
export function urlOf(draft: Draft): string {
  const search = new URLSearchParams();
  for (const row of used(draft.query)) search.append(row.name, row.value);
  const query = search.toString();
  if (query === '') return draft.path;
  return draft.path + (draft.path.includes('?') ? '&' : '?') + query;
}

/** Escapes what would change how a query reads (`%`, `&`, `=`, `#`, `+`, spaces); the rest stays readable. */
function readableComponent(text: string, name: boolean): string {
  return text.replace(name ? /[%&=#+\s]/g : /[%&#+\s]/g, (c) => encodeURIComponent(c));
}

/**
 * The path box's text: the path and the enabled query rows, readable (`?name=zoë`, not `zo%C3%AB`).
 * @example pathText({ path: '/hello', query: [{ name: 'name', value: 'zoë', enabled: true }] }) // '/hello?name=zoë'
 */
export function pathText(draft: Pick<Draft, 'path' | 'query'>): string {
  const pairs = used(draft.query).map(
    (row) => `${readableComponent(row.name, true)}=${readableComponent(row.value, false)}`,
  );
  if (pairs.length === 0) return draft.path;
  return draft.path + (draft.path.includes('?') ? '&' : '?') + pairs.join('&');
}

/**
 * Reads the path box into the draft: the path before `?`, the query after it becomes the enabled
 * rows; disabled rows are kept, and one empty row stays at the end for adding.
 * @example setPathText(draft, '/hello?name=ann') // draft.path '/hello', draft.query [name=ann, (empty)]
 */
export function setPathText(draft: Pick<Draft, 'path' | 'query'>, text: string): void {
  const hash = text.indexOf('#');
  const clean = hash === -1 ? text : text.slice(0, hash);
  const at = clean.indexOf('?');
  draft.path = at === -1 ? clean : clean.slice(0, at);
  const typed: Row[] =
    at === -1
      ? []
      : [...new URLSearchParams(clean.slice(at + 1))].map(([name, value]) => ({ name, value, enabled: true }));
  const off = draft.query.filter((row) => !row.enabled && row.name !== '');
  draft.query = [...typed, ...off, emptyRow()];
}

/** The request as `fetch` takes it; throws an Error naming what to fix in the editor. */
export function toRequest(draft: Draft, extraHeaders: Record<string, string>): { url: string; init: RequestInit } {
  if (!draft.path.startsWith('/')) throw new Error(`the path must start with /, got ${JSON.stringify(draft.path)}`);
  const headers = new Headers();
  for (const row of used(draft.headers)) headers.append(row.name, row.value);
  for (const [name, value] of Object.entries(extraHeaders)) headers.set(name, value);
  const init: RequestInit = { method: draft.method, headers };
  if (draft.method === 'POST') {
    const type = CONTENT_TYPES[draft.bodyType];
    if (draft.bodyType === 'multipart') headers.delete('content-type');
    else if (type !== undefined && !headers.has('content-type')) headers.set('content-type', type);
    init.body = bodyOf(draft);
  }
  return { url: urlOf(draft), init };
}

function bodyOf(draft: Draft): BodyInit {
  switch (draft.bodyType) {
    case 'json':
      // Sent even when it does not parse (the editor marks it): how the function answers bad
      // JSON is worth seeing.
      return draft.json;
    case 'text':
      return draft.text;
    case 'urlencoded': {
      const form = new URLSearchParams();
      for (const row of used(draft.form)) form.append(row.name, row.value);
      return form.toString();
    }
    case 'binary':
      if (draft.binaryMode === 'file') {
        if (draft.binaryFile === undefined) throw new Error('choose a file to send as the binary body');
        return fromBase64(draft.binaryFile.base64);
      }
      return parseHex(draft.hex);
    case 'multipart': {
      const form = new FormData();
      for (const row of used(draft.parts)) {
        if (row.kind === 'file') {
          if (row.file === undefined) throw new Error(`choose a file for the part ${JSON.stringify(row.name)}`);
          form.append(row.name, new Blob([fromBase64(row.file.base64)], { type: row.file.type }), row.file.name);
        } else {
          form.append(row.name, row.value);
        }
      }
      return form;
    }
  }
}
