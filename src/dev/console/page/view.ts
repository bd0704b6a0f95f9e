/** Showing a response: body as pretty JSON, text or a hex dump; headers; log lines. */
import type { ConsoleLogRecord } from '../protocol.js';
import { h } from './dom.js';

export type BodyView = 'pretty' | 'text' | 'hex';

/** Shown bytes of a hex dump; the rest is summarised. */
const HEX_LIMIT = 64 * 1024;
const TEXT_DECODER = new TextDecoder('utf-8', { fatal: true });

/** How to show a body by default, from its content type and bytes. */
export function defaultView(contentType: string | null, bytes: Uint8Array): BodyView {
  const type = (contentType ?? '').toLowerCase();
  if (/[/+]json\b/.test(type)) return 'pretty';
  if (type.startsWith('text/') || /xml|javascript|urlencoded/.test(type)) return 'text';
  if (bytes.length === 0) return 'text';
  return decodes(bytes) && !type.includes('octet-stream') ? 'text' : 'hex';
}

function decodes(bytes: Uint8Array): boolean {
  try {
    TEXT_DECODER.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The body in the chosen view. */
export function renderBody(bytes: Uint8Array, view: BodyView): HTMLElement {
  if (view === 'hex') return h('pre', { class: 'code hex', id: 'response-body' }, hexDump(bytes));
  const text = new TextDecoder().decode(bytes);
  if (view === 'pretty') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return h(
        'pre',
        { class: 'code', id: 'response-body' },
        text === '' ? h('span', { class: 'muted' }, '(empty body)') : text,
      );
    }
    const pretty = h(
      'pre',
      { class: 'code json', id: 'response-body' },
      highlightJson(JSON.stringify(parsed, null, 2)),
    );
    // An error whose message has lines (a compile error's code frame) is easier to read unescaped.
    const message = (parsed as { error?: { message?: unknown } } | null)?.error?.message;
    if (typeof message !== 'string' || !message.includes('\n')) return pretty;
    return h('div', {}, pretty, h('pre', { class: 'code error-message', id: 'response-error-message' }, message));
  }
  return h(
    'pre',
    { class: 'code', id: 'response-body' },
    text === '' ? h('span', { class: 'muted' }, '(empty body)') : text,
  );
}

/**
 * A classic dump: offset, 16 bytes in hex, the printable ASCII.
 * @example hexDump(new Uint8Array([0x68, 0x69])) // '00000000  68 69  …  |hi|'
 */
export function hexDump(bytes: Uint8Array): string {
  const lines: string[] = [];
  const shown = Math.min(bytes.length, HEX_LIMIT);
  for (let offset = 0; offset < shown; offset += 16) {
    const row = bytes.subarray(offset, Math.min(offset + 16, shown));
    const hex = Array.from(row, (b) => b.toString(16).padStart(2, '0'));
    const left = hex.slice(0, 8).join(' ');
    const right = hex.slice(8).join(' ');
    const ascii = Array.from(row, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${offset.toString(16).padStart(8, '0')}  ${left.padEnd(23)}  ${right.padEnd(23)}  |${ascii}|`);
  }
  if (bytes.length > shown) lines.push(`… ${bytes.length - shown} more bytes`);
  if (bytes.length === 0) lines.push('(empty body)');
  return lines.join('\n');
}

const JSON_TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** Wraps JSON tokens in spans for colour; built as nodes, so the body's text stays text. */
export function highlightJson(json: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  let last = 0;
  for (const match of json.matchAll(JSON_TOKEN)) {
    const at = match.index ?? 0;
    if (at > last) fragment.append(json.slice(last, at));
    const kind =
      match[1] !== undefined
        ? match[2] !== undefined
          ? 'key'
          : 'string'
        : match[3] !== undefined
          ? 'literal'
          : 'number';
    fragment.append(h('span', { class: `j-${kind}` }, match[1] ?? match[0]));
    if (match[2] !== undefined) fragment.append(match[2]);
    last = at + match[0].length;
  }
  fragment.append(json.slice(last));
  return fragment;
}

/** The response headers as a two-column table. */
export function renderHeaders(headers: Headers): HTMLElement {
  const rows = [...headers.entries()].map(([name, value]) => h('tr', {}, h('th', {}, name), h('td', {}, value)));
  return h('table', { class: 'headers', id: 'response-headers' }, h('tbody', {}, ...rows));
}

const OWN_FIELDS = new Set(['seq', 'level', 'time', 'logid', 'trace_id', 'span_id', 'function', 'msg', 'stack']);

function isRequestLine(record: ConsoleLogRecord): boolean {
  return (
    typeof record['method'] === 'string' &&
    typeof record['status'] === 'number' &&
    typeof record['durationMs'] === 'number'
  );
}

function clock(time: number): string {
  const d = new Date(time);
  return `${d.toLocaleTimeString([], { hour12: false })}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** One log line of a request: time, level, function, message and fields, stack below. */
export function renderLog(record: ConsoleLogRecord): HTMLElement {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (!OWN_FIELDS.has(key)) fields[key] = value;
  const request = isRequestLine(record);
  const rest = request || Object.keys(fields).length === 0 ? '' : JSON.stringify(fields);
  return h(
    'li',
    { class: `log level-${record.level}${request ? ' request-line' : ''}` },
    h('span', { class: 'log-time' }, clock(record.time)),
    h('span', { class: 'log-level' }, request ? 'req' : record.level),
    h('span', { class: 'log-fn' }, record.function),
    h(
      'span',
      { class: 'log-msg' },
      record.msg ?? '',
      rest === '' ? null : h('span', { class: 'log-fields' }, (record.msg ? ' ' : '') + rest),
    ),
    typeof record['stack'] === 'string' ? h('pre', { class: 'log-stack' }, record['stack']) : null,
  );
}

/** `512 B`, `1.5 KB`, `2.0 MB`. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
