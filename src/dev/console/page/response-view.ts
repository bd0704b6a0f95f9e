/**
 * The response pane: the status, the round trip and the server's time, the size, the logid and
 * the trace id of the page's last request, and its body (pretty, text or hex) or its headers.
 */
import { h, byId, replace } from './dom.js';
import { urlOf } from './draft.js';
import { statusKind } from './requests.js';
import type { ConsoleStore, Exchange } from './store.js';
import { defaultView, formatBytes, renderBody, renderHeaders } from './view.js';

/** The reason phrase shown after a status. */
const REASONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  301: 'Moved Permanently',
  302: 'Found',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/**
 * Draws the response pane from the store's current exchange.
 * @example renderResponse(store) // after the response (or the request's event) arrived
 */
export function renderResponse(store: ConsoleStore): void {
  const summary = byId('response-summary');
  const tabs = byId('response-tabs');
  const pane = byId('response-pane');
  const exchange = store.current;
  if (exchange === undefined) {
    replace(summary, h('span', { class: 'muted' }, 'Send a request to see its response here.'));
    replace(tabs);
    replace(pane);
    return;
  }
  if (exchange.cancelled === true) {
    replace(
      summary,
      h('span', { class: 'badge warn', id: 'response-status' }, 'cancelled'),
      h('code', { class: 'request-url' }, `${exchange.draft.method} ${urlOf(exchange.draft)}`),
    );
    replace(tabs);
    replace(pane, h('p', { class: 'muted' }, 'You cancelled the request before its response arrived.'));
    return;
  }
  if (exchange.failure !== undefined) {
    replace(summary, h('span', { class: 'badge bad', id: 'response-status' }, 'not sent'));
    replace(tabs);
    replace(pane, h('p', { class: 'problem', id: 'response-problem' }, exchange.failure));
    return;
  }
  const response = exchange.response;
  if (response === undefined) {
    replace(
      summary,
      h('span', { class: 'badge pending', id: 'response-status' }, 'sending…'),
      h('code', { class: 'request-url' }, `${exchange.draft.method} ${urlOf(exchange.draft)}`),
    );
    replace(tabs);
    replace(pane);
    return;
  }
  const kind = statusKind(response.status);
  const server =
    exchange.info === undefined
      ? null
      : h(
          'span',
          {
            class: 'stat',
            id: 'response-server-duration',
            title: 'time in the request pipeline, from the request line',
          },
          `${exchange.info.durationMs} ms in server`,
        );
  replace(
    summary,
    h(
      'span',
      { class: `badge ${kind}`, id: 'response-status' },
      `${response.status} ${REASONS[response.status] ?? ''}`.trim(),
    ),
    h(
      'span',
      { class: 'stat', id: 'response-duration', title: 'round trip measured by the page' },
      `${response.roundTripMs.toFixed(1)} ms`,
    ),
    server,
    h('span', { class: 'stat', id: 'response-size' }, formatBytes(response.bytes.length)),
    h(
      'span',
      { class: 'stat logid' },
      'logid ',
      h(
        'code',
        { id: 'response-logid' },
        response.headers.get(store.meta?.logidHeader ?? 'x-platform-logid') ?? exchange.logid,
      ),
    ),
    exchange.info === undefined
      ? null
      : h('span', { class: 'stat trace' }, 'trace ', h('code', { id: 'response-trace' }, exchange.info.traceId)),
  );
  const view = exchange.view ?? defaultView(response.headers.get('content-type'), response.bytes);
  const tab = (id: Exchange['tab'], label: string) =>
    h(
      'button',
      {
        class: `tab${exchange.tab === id ? ' active' : ''}`,
        id: `response-tab-${id}`,
        onclick: () => {
          exchange.tab = id;
          renderResponse(store);
        },
      },
      label,
    );
  const views = h(
    'div',
    { class: 'segmented views' },
    ...(['pretty', 'text', 'hex'] as const).map((v) =>
      h(
        'button',
        {
          class: v === view ? 'active' : '',
          id: `view-${v}`,
          onclick: () => {
            exchange.view = v;
            renderResponse(store);
          },
        },
        v === 'pretty' ? 'Pretty' : v === 'text' ? 'Text' : 'Hex',
      ),
    ),
  );
  replace(
    tabs,
    tab('body', 'Body'),
    tab('headers', `Headers (${[...response.headers.keys()].length})`),
    exchange.tab === 'body' ? views : null,
  );
  replace(pane, exchange.tab === 'body' ? renderBody(response.bytes, view) : renderHeaders(response.headers));
}
