/**
 * A draft as a curl command, and a curl command as a draft: what the page's "Copy as curl" and
 * "Paste curl" do. The parser reads the shell words curl users paste (quotes, `$'…'`, `\` line
 * continuations) and the options that shape a request: -X, -H, -d and its variants, -F, -G and
 * the URL with its query; the options it does not know are skipped.
 */
import { emptyRow, newDraft, parseHex, type Draft, type Row } from './draft.js';

/** Quotes a word for a POSIX shell: bare when safe, else in single quotes. */
export function shellQuote(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

function used(rows: Row[]): Row[] {
  return rows.filter((row) => row.enabled && row.name !== '');
}

function queryString(rows: Row[]): string {
  const search = new URLSearchParams();
  for (const row of used(rows)) search.append(row.name, row.value);
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * The draft as one curl command for `origin` (`http://127.0.0.1:8000`), with its headers and
 * body. Multipart parts become `-F` (a file part names its file: keep it beside you), a binary
 * body is piped in from printf.
 * @example toCurl(draft, 'http://127.0.0.1:8000') // "curl -X POST http://127.0.0.1:8000/echo -H 'content-type: application/json' --data-raw '{}'"
 */
export function toCurl(draft: Draft, origin: string): string {
  const words = ['curl'];
  let pipe = '';
  if (draft.method === 'POST') words.push('-X', 'POST');
  words.push(shellQuote(origin + draft.path + queryString(draft.query)));
  const headers = used(draft.headers);
  const hasType = headers.some((row) => row.name.toLowerCase() === 'content-type');
  for (const row of headers) words.push('-H', shellQuote(`${row.name}: ${row.value}`));
  if (draft.method === 'POST') {
    const type = {
      json: 'application/json',
      urlencoded: 'application/x-www-form-urlencoded',
      text: 'text/plain; charset=utf-8',
      binary: 'application/octet-stream',
      multipart: undefined,
    }[draft.bodyType];
    if (type !== undefined && !hasType) words.push('-H', shellQuote(`content-type: ${type}`));
    switch (draft.bodyType) {
      case 'json':
        words.push('--data-raw', shellQuote(draft.json));
        break;
      case 'text':
        words.push('--data-raw', shellQuote(draft.text));
        break;
      case 'urlencoded':
        words.push('--data-raw', shellQuote(queryString(draft.form).slice(1)));
        break;
      case 'binary':
        if (draft.binaryMode === 'file') {
          words.push('--data-binary', shellQuote(`@${draft.binaryFile?.name ?? 'body.bin'}`));
        } else {
          const bytes = parseHex(draft.hex);
          pipe = `printf '${Array.from(bytes, (b) => `\\x${b.toString(16).padStart(2, '0')}`).join('')}' | `;
          words.push('--data-binary', '@-');
        }
        break;
      case 'multipart':
        for (const row of used(draft.parts)) {
          if (row.kind === 'file') {
            const file = row.file;
            const type = file === undefined ? '' : `;type=${file.type}`;
            words.push('-F', shellQuote(`${row.name}=@${file?.name ?? 'file'}${type}`));
          } else {
            // `-F name=value` reads a value starting with @ or < as a file: --form-string does not.
            const literal = /^[@<]/.test(row.value);
            words.push(literal ? '--form-string' : '-F', shellQuote(`${row.name}=${row.value}`));
          }
        }
        break;
    }
  }
  return pipe + words.join(' ');
}

/**
 * Splits a shell command line into words: single and double quotes, `$'…'` with its escapes,
 * backslashes, and `\` at the end of a line (a continuation).
 * @example shellWords(`curl -H 'a: b' "x y"`) // ['curl', '-H', 'a: b', 'x y']
 */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let i = 0;
  const add = (s: string): void => void (word = (word ?? '') + s);
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\') {
      const next = text[i + 1];
      if (next === '\n') i += 2;
      else if (next === '\r' && text[i + 2] === '\n') i += 3;
      else {
        add(next ?? '');
        i += 2;
      }
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end === -1) throw new Error('the curl command has an unclosed single quote');
      add(text.slice(i + 1, end));
      i = end + 1;
    } else if (c === '$' && text[i + 1] === "'") {
      i += 2;
      let s = '';
      while (i < text.length && text[i] !== "'") {
        if (text[i] === '\\') {
          const [value, length] = ansiEscape(text, i + 1);
          s += value;
          i += 1 + length;
        } else s += text[i++];
      }
      if (i >= text.length) throw new Error("the curl command has an unclosed $' quote");
      add(s);
      i++;
    } else if (c === '"') {
      i++;
      let s = '';
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && /["\\$`\n]/.test(text[i + 1] ?? '')) {
          if (text[i + 1] !== '\n') s += text[i + 1];
          i += 2;
        } else s += text[i++];
      }
      if (i >= text.length) throw new Error('the curl command has an unclosed double quote');
      add(s);
      i++;
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      i++;
    } else {
      add(c);
      i++;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

const ESCAPES: Record<string, string> = {
  n: '\n',
  r: '\r',
  t: '\t',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '0': '\0',
  e: '\x1b',
};

/** One escape of `$'…'` at `at` (after the backslash): its value and how many characters it took. */
function ansiEscape(text: string, at: number): [string, number] {
  const c = text[at] ?? '';
  const hex =
    c === 'x'
      ? /^[0-9a-fA-F]{1,2}/.exec(text.slice(at + 1))
      : c === 'u'
        ? /^[0-9a-fA-F]{1,4}/.exec(text.slice(at + 1))
        : null;
  if (hex !== null) return [String.fromCharCode(parseInt(hex[0], 16)), 1 + hex[0].length];
  return [ESCAPES[c] ?? `\\${c}`, 1];
}

/** curl options that take a value the parser ignores (so the value is not read as the URL). */
const SKIPPED_WITH_VALUE = new Set([
  '-u',
  '--user',
  '-o',
  '--output',
  '-A',
  '--user-agent',
  '-e',
  '--referer',
  '-b',
  '--cookie',
  '-c',
  '--cookie-jar',
  '-m',
  '--max-time',
  '--connect-timeout',
  '-w',
  '--write-out',
  '-x',
  '--proxy',
  '--resolve',
  '--retry',
  '-T',
  '--upload-file',
  '--cacert',
  '--cert',
  '--key',
  '-r',
  '--range',
]);

const DATA = new Set(['-d', '--data', '--data-raw', '--data-binary', '--data-ascii', '--data-urlencode', '--json']);

/**
 * Fills a draft from a curl command; throws an Error naming what it cannot read.
 * @example parseCurl(`curl -X POST localhost:8000/echo -H 'content-type: application/json' -d '{"a":1}'`).json // '{"a":1}'
 */
export function parseCurl(command: string): Draft {
  const words = shellWords(command.trim());
  if (words[0] !== 'curl') throw new Error('a curl command starts with curl');
  let method: string | undefined;
  let url: string | undefined;
  let get = false;
  let json = false;
  const headers: Row[] = [];
  const data: string[] = [];
  const parts: Row[] = [];
  for (let i = 1; i < words.length; i++) {
    let word = words[i]!;
    let value: string | undefined;
    // --opt=value, and short options glued to their value (-XPOST, -HAccept:x).
    if (word.startsWith('--') && word.includes('=')) {
      value = word.slice(word.indexOf('=') + 1);
      word = word.slice(0, word.indexOf('='));
    } else if (/^-[XHdF]./.test(word)) {
      value = word.slice(2);
      word = word.slice(0, 2);
    }
    const take = (): string => {
      if (value !== undefined) return value;
      const next = words[++i];
      if (next === undefined) throw new Error(`${word} needs a value`);
      return next;
    };
    if (word === '-X' || word === '--request') method = take().toUpperCase();
    else if (word === '-H' || word === '--header') {
      const line = take();
      const colon = line.indexOf(':');
      if (colon > 0)
        headers.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim(), enabled: true });
    } else if (DATA.has(word)) {
      const text = take();
      if (word === '--json') json = true;
      data.push(word === '--data-urlencode' ? encodeData(text) : text);
    } else if (word === '-F' || word === '--form' || word === '--form-string') {
      parts.push(formPart(take(), word === '--form-string'));
    } else if (word === '--url') url = take();
    else if (word === '-G' || word === '--get') get = true;
    else if (SKIPPED_WITH_VALUE.has(word)) take();
    else if (word.startsWith('-') && word.length > 1) continue;
    else url ??= word;
  }
  if (url === undefined) throw new Error('the curl command has no URL');
  const target = new URL(
    /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url.startsWith('/') ? 'localhost' : ''}${url}`,
  );
  const draft = newDraft(target.pathname);
  draft.query = [...target.searchParams].map(([name, value]) => ({ name, value, enabled: true }));
  if (get) {
    for (const [name, value] of new URLSearchParams(data.join('&'))) draft.query.push({ name, value, enabled: true });
    data.length = 0;
  }
  draft.query.push(emptyRow());
  draft.method = (method ?? (data.length > 0 || parts.length > 0 ? 'POST' : 'GET')) === 'POST' ? 'POST' : 'GET';
  const typeRow = headers.find((row) => row.name.toLowerCase() === 'content-type');
  const type = (typeRow?.value ?? (json ? 'application/json' : '')).toLowerCase();
  // The editor sets the content type from the body type: a header saying the same is dropped.
  let keepType = true;
  if (parts.length > 0) {
    draft.bodyType = 'multipart';
    draft.parts = parts;
    keepType = false;
  } else if (data.length > 0) {
    const body = data.join('&');
    if (type.includes('json') || (type === '' && looksLikeJson(body))) {
      draft.bodyType = 'json';
      draft.json = body;
      keepType = type !== '' && type !== 'application/json';
    } else if (type === '' || type.startsWith('application/x-www-form-urlencoded')) {
      draft.bodyType = 'urlencoded';
      draft.form = [...new URLSearchParams(body)].map(([name, value]) => ({ name, value, enabled: true }));
      draft.form.push(emptyRow());
      keepType = false;
    } else {
      draft.bodyType = 'text';
      draft.text = body;
      keepType = !type.startsWith('text/plain');
    }
  }
  draft.headers = headers.filter((row) => keepType || row !== typeRow);
  draft.headers.push(emptyRow());
  return draft;
}

function looksLikeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return /^\s*[[{]/.test(text);
  } catch {
    return false;
  }
}

/** `--data-urlencode name=value` sends value URL-encoded; `=value` and `value` too. */
function encodeData(text: string): string {
  const eq = text.indexOf('=');
  if (eq === -1) return encodeURIComponent(text);
  return `${text.slice(0, eq)}${eq === 0 ? '' : '='}${encodeURIComponent(text.slice(eq + 1))}`;
}

/** `-F name=value`, `-F name=@file;type=…` (a file part: the file is chosen in the editor). */
function formPart(text: string, literal: boolean): Row {
  const eq = text.indexOf('=');
  if (eq === -1) throw new Error(`-F needs name=value, got ${JSON.stringify(text)}`);
  const name = text.slice(0, eq);
  const value = text.slice(eq + 1);
  if (!literal && value.startsWith('@'))
    return { name, value: value.slice(1).split(';')[0] ?? '', enabled: true, kind: 'file' };
  return { name, value, enabled: true, kind: 'field' };
}
