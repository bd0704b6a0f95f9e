/**
 * The console's Connections panel (docs/gateway.md#the-console): who is connected to the dev
 * server's WebSocket gateway (`${CLOUDFN_PREFIX}/api/connections`), every connect, uplink, push, group
 * change and disconnect as it happens (the `ws` events of `${CLOUDFN_PREFIX}/api/events`), and clients
 * of the page's own: a real browser WebSocket to `/__dycloud__/ws/connect/` (the function's path
 * and the user as query parameters), which sends uplinks as a mini-program would. A service with
 * no function answering the gateway (`FunctionStatus.websocket`) shows one grey line instead,
 * until a connection is made anyway.
 */
import { API } from './api.js';
import { byId, h, replace } from './dom.js';
import type { ConnectionsAnswer, GatewayActivity, SessionInfo } from '../../../platform/gateway/protocol.js';
import type { FunctionStatus } from '../protocol.js';

/** The activity lines kept on the page. */
const MAX_LINES = 300;
/** Characters of a message shown on its line. */
const PREVIEW = 160;

/** One client the page opened. */
interface PageClient {
  id: number;
  path: string;
  openid: string;
  socket: WebSocket;
  state: string;
  received: string[];
  /** The timer of a close 5 s after going to the background. */
  background?: ReturnType<typeof setTimeout>;
}

/** The platform's mini-program client: at most 5 sockets at once, and a close 5 s after going to the background. */
const CLIENT_LIMITS = { sockets: 5, backgroundCloseMs: 5000 } as const;

function preview(text: string): string {
  return text.length > PREVIEW ? `${text.slice(0, PREVIEW)}…` : text;
}

function describe(activity: GatewayActivity): { text: string; kind: string } {
  switch (activity.type) {
    case 'connect':
      return {
        kind: 'connect',
        text: `connect ${activity.session.sessionId} ${activity.session.path} as ${activity.session.openid} → ${activity.status}`,
      };
    case 'refused':
      return {
        kind: 'problem',
        text: `refused ${activity.path} as ${activity.openid} → ${activity.status} ${preview(activity.body)}`,
      };
    case 'uplink':
      return {
        kind: activity.status >= 400 ? 'problem' : 'uplink',
        text: `uplink ${activity.sessionId}${activity.binary ? ' (bytes, base64)' : ''}: ${preview(activity.data)} → ${activity.status}`,
      };
    case 'push':
      return {
        kind: 'push',
        text: `push (${activity.via}) → ${activity.sessionId}${activity.binary ? ' (bytes, base64)' : ''}: ${preview(activity.data)}`,
      };
    case 'group':
      return { kind: 'group', text: `${activity.action} ${activity.group}: ${activity.sessionId}` };
    case 'disconnect':
      return {
        kind: 'disconnect',
        text: `disconnect ${activity.sessionId} (close ${activity.code}${activity.reason === '' ? '' : ` ${activity.reason}`}) → ${activity.status}`,
      };
  }
}

/** What the page tells the panel. */
export interface ConnectionsPanel {
  /** The function list changed: a WebSocket function may have come or gone. */
  functionsChanged(functions: readonly FunctionStatus[]): void;
}

/**
 * Fills `#connections` and keeps it current from its own event stream.
 * @example startConnectionsPanel(meta.functions)
 */
export function startConnectionsPanel(functions: readonly FunctionStatus[]): ConnectionsPanel {
  const root = byId('connections');
  const paths = functions.filter((fn) => fn.websocket).map((fn) => fn.path);
  const count = h('span', { class: 'muted' });
  const list = h('ul', { class: 'fn-list connections' });
  const activity = h('ul', { class: 'logs ws-activity' });
  const clientsBox = h('div', { class: 'ws-clients' });
  const pathInput = h('input', {
    type: 'text',
    list: 'ws-paths',
    value: paths[0] ?? '/websocket_callback',
    'aria-label': 'function path (X-TT-SERVICE-PATH)',
  });
  const openidInput = h('input', { type: 'text', placeholder: 'openid (dev user when empty)', 'aria-label': 'openid' });
  const clients: PageClient[] = [];
  const limitNote = h('p', { class: 'problem ws-limit', hidden: true });
  let nextId = 1;

  // This page is one mini-program client: its sixth socket is refused as the client refuses it.
  const held = (): number =>
    clients.filter((c) => c.socket.readyState === WebSocket.CONNECTING || c.socket.readyState === WebSocket.OPEN)
      .length;
  const toBackground = (client: PageClient): void => {
    if (client.background !== undefined) {
      clearTimeout(client.background);
      client.background = undefined;
      client.state = client.socket.readyState === WebSocket.OPEN ? 'open' : client.state;
    } else {
      client.state = 'in the background: closes in 5 s';
      client.background = setTimeout(() => {
        client.background = undefined;
        client.socket.close(1000, 'the app went to the background');
      }, CLIENT_LIMITS.backgroundCloseMs);
    }
    renderClients();
  };

  const renderClients = (): void => {
    replace(
      clientsBox,
      ...clients.map((client) => {
        const input = h('input', {
          type: 'text',
          placeholder: 'message to send as this client',
          'aria-label': 'uplink',
        });
        const send = (): void => {
          if (client.socket.readyState !== WebSocket.OPEN) return;
          client.socket.send(input.value);
          input.value = '';
        };
        input.addEventListener('keydown', (event) => {
          if (event.key === 'Enter') send();
        });
        return h(
          'div',
          { class: 'ws-client' },
          h(
            'div',
            {},
            h('strong', { text: `client ${client.id}` }),
            ` ${client.path} as ${client.openid || 'dev user'} — ${client.state}`,
          ),
          h(
            'div',
            { class: 'ws-send' },
            input,
            h('button', { text: 'Send', onclick: send }),
            h('button', {
              class: 'link',
              text: 'close',
              onclick: () => client.socket.close(1000, 'closed from the console'),
            }),
            h('button', {
              class: 'link ws-background',
              text: client.background === undefined ? 'background' : 'foreground',
              title: 'the platform client closes a socket 5 s after the app goes to the background',
              onclick: () => toBackground(client),
            }),
          ),
          h(
            'ul',
            { class: 'logs' },
            ...client.received.slice(-20).map((text) => h('li', { text: `← ${preview(text)}` })),
          ),
        );
      }),
    );
  };

  const connect = (): void => {
    const path = pathInput.value.trim();
    const openid = openidInput.value.trim();
    if (held() >= CLIENT_LIMITS.sockets) {
      limitNote.textContent = `connectSocket:fail this client already holds ${CLIENT_LIMITS.sockets} sockets, the most a mini-program client may; close one first`;
      limitNote.hidden = false;
      return;
    }
    limitNote.hidden = true;
    const query = new URLSearchParams({ service_path: path });
    if (openid !== '') query.set('openid', openid);
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const socket = new WebSocket(`${scheme}://${location.host}/__dycloud__/ws/connect/?${query}`);
    socket.binaryType = 'arraybuffer';
    const client: PageClient = { id: nextId++, path, openid, socket, state: 'connecting', received: [] };
    clients.push(client);
    socket.onopen = () => {
      client.state = 'open';
      renderClients();
    };
    socket.onmessage = (event: MessageEvent<string | ArrayBuffer>) => {
      client.received.push(typeof event.data === 'string' ? event.data : `(${event.data.byteLength} bytes)`);
      renderClients();
    };
    socket.onclose = (event) => {
      clearTimeout(client.background);
      client.background = undefined;
      // A refused connect never opens: the browser reports 1006, the activity line says why.
      client.state = `closed ${event.code}${event.reason === '' ? '' : ` ${event.reason}`}`;
      renderClients();
    };
    renderClients();
  };

  const renderList = (sessions: SessionInfo[]): void => {
    count.textContent = `(${sessions.length})`;
    if (sessions.length === 0) {
      replace(list, h('li', { class: 'muted', text: 'no connections' }));
      return;
    }
    replace(
      list,
      ...sessions.map((s) =>
        h(
          'li',
          {},
          `${s.sessionId} ${s.path} as ${s.openid}`,
          s.groups.length > 0 ? h('span', { class: 'muted', text: ` groups: ${s.groups.join(', ')}` }) : null,
        ),
      ),
    );
  };

  const body = h('div', { class: 'ws-body' });
  const absent = h('p', {
    class: 'muted ws-absent',
    text: 'no WebSocket function here: the gateway calls a function that reads x-tt-event-type (docs/gateway.md)',
  });
  /** Whether anyone connected, whatever the functions: then the panel shows, to say what happened. */
  let seen = false;
  const show = (): void => {
    const applies = paths.length > 0 || seen;
    body.hidden = !applies;
    absent.hidden = applies;
  };

  const refresh = async (): Promise<void> => {
    try {
      const res = await fetch(`${API}/connections`);
      if (!res.ok) throw new Error(`${API}/connections answered ${res.status}`);
      const { connections } = (await res.json()) as ConnectionsAnswer;
      if (connections.length > 0 && !seen) {
        seen = true;
        show();
      }
      renderList(connections);
    } catch (error) {
      replace(list, h('li', { class: 'muted', text: (error as Error).message }));
    }
  };

  const datalist = h('datalist', { id: 'ws-paths' });
  const listPaths = (): void => replace(datalist, ...paths.map((p) => h('option', { value: p })));
  listPaths();
  replace(
    body,
    h('p', { class: 'muted', text: 'WebSocket clients of /__dycloud__/ws/connect/ and every push (docs/gateway.md).' }),
    datalist,
    h('div', { class: 'ws-send' }, pathInput, openidInput, h('button', { text: 'Connect', onclick: connect })),
    limitNote,
    clientsBox,
    list,
    h('h3', {}, 'Activity ', h('button', { class: 'link', text: 'clear', onclick: () => replace(activity) })),
    activity,
  );
  replace(root, h('h2', {}, 'Connections ', count), absent, body);
  show();

  const source = new EventSource(`${API}/events`);
  source.addEventListener('ws', (event) => {
    const entry = JSON.parse((event as MessageEvent<string>).data) as GatewayActivity;
    seen = true;
    show();
    const { text, kind } = describe(entry);
    activity.prepend(h('li', { class: `ws-${kind}`, text: `${new Date().toLocaleTimeString()} ${text}` }));
    while (activity.childElementCount > MAX_LINES) activity.lastElementChild?.remove();
    if (entry.type !== 'uplink' && entry.type !== 'push') void refresh();
  });
  void refresh();
  return {
    functionsChanged(list) {
      const had = paths[0];
      paths.splice(0, paths.length, ...list.filter((fn) => fn.websocket).map((fn) => fn.path));
      listPaths();
      // A path the user typed stays; the pre-filled one follows the functions.
      if (pathInput.value === (had ?? '/websocket_callback')) pathInput.value = paths[0] ?? '/websocket_callback';
      show();
    },
  };
}
