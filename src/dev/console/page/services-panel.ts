/**
 * The console's Services panel (docs/dev.md#the-services-panel): every service of the
 * `cloudfn dev` session (`${CLOUDFN_PREFIX}/api/services`) with its id, URL and console, which one this
 * page belongs to, which ones this service may call (its `innerCall`, with the inner-call host
 * it calls them at), whether each answers, and the session's components with their addresses and
 * the services that use each (every service's `${CLOUDFN_PREFIX}/api/components`: a service that uses
 * none still sees the Redis its neighbours use). Whether a service answers is one GET of its own
 * `${CLOUDFN_PREFIX}/api/services` (another port: its dev server lets a loopback page read that answer),
 * bounded by a timeout, on load, on **check** and every few seconds.
 */
import { API } from './api.js';
import { byId, h, replace } from './dom.js';
import type { ComponentsAnswer } from '../../../platform/components/protocol.js';
import type { ServiceEntry, ServicesAnswer } from '../../../platform/services/protocol.js';

/** How long a service may take to answer before it counts as not answering. */
const PROBE_TIMEOUT_MS = 2000;
/** How often the services are asked again while the page is open. */
const RECHECK_MS = 10_000;
/** How soon a component being restarted is looked at again. */
const RESTARTING_RECHECK_MS = 1_000;
/** The platform's host of an inner call, as a function of `from` calls `to` (docs/services.md). */
const innerCallHost = (from: string, to: string): string => `${from}-${to}.inner-call.dyc.ivolces.com`;

/** What one check of a service found. */
interface Probe {
  state: 'checking' | 'up' | 'odd' | 'down';
  text: string;
}

const isTimeout = (error: unknown): boolean => error instanceof DOMException && error.name === 'TimeoutError';

/** Asks `entry` for its services answer: up when it answers as itself. */
async function probe(entry: ServiceEntry): Promise<Probe> {
  const started = performance.now();
  try {
    const res = await fetch(`${entry.url}${API}/services`, {
      cache: 'no-store',
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    const ms = Math.round(performance.now() - started);
    if (!res.ok) return { state: 'odd', text: `answers ${res.status}: not a cloudfn dev server's console` };
    let answer: Partial<ServicesAnswer>;
    try {
      answer = (await res.json()) as Partial<ServicesAnswer>;
    } catch {
      return { state: 'odd', text: 'answers, but not with JSON: another program has this port' };
    }
    if (answer.self !== entry.id)
      return { state: 'odd', text: `answers as ${String(answer.self)}, not as ${entry.id}` };
    return { state: 'up', text: `answers (${ms} ms)` };
  } catch (error) {
    if (isTimeout(error)) return { state: 'down', text: `no answer within ${PROBE_TIMEOUT_MS / 1000} s` };
    // A refused connection and an answer the browser may not read look alike to a page: ask once
    // more without reading the answer, which only a refused or broken connection fails.
    try {
      await fetch(`${entry.url}/`, {
        mode: 'no-cors',
        cache: 'no-store',
        signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      });
      return { state: 'odd', text: 'something answers there, but not a cloudfn dev server of this session' };
    } catch (again) {
      return isTimeout(again)
        ? { state: 'down', text: `no answer within ${PROBE_TIMEOUT_MS / 1000} s` }
        : { state: 'down', text: 'not answering: stopped, or it failed to start (see its lines in the terminal)' };
    }
  }
}

async function getJson<T>(name: string, base = ''): Promise<T> {
  const res = await fetch(`${base}${API}/${name}`, {
    cache: 'no-store',
    signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
  });
  if (!res.ok) throw new Error(`${base}${API}/${name} answered ${res.status}`);
  return (await res.json()) as T;
}

/** One component of the session: a server (name, address, state) and the services given it. */
type SessionComponent = ComponentsAnswer['components'][number] & { users: string[] };

/**
 * The components of every service of the session that answers, one entry per server: a
 * component the session started is shared (one address, several users); one given by URL is
 * its service's own. This service's first, then the others' in the session's order.
 */
async function sessionComponents(services: readonly ServiceEntry[]): Promise<SessionComponent[]> {
  const ordered = [...services.filter((s) => s.self), ...services.filter((s) => !s.self)];
  const answers = await Promise.all(
    ordered.map((entry) =>
      getJson<ComponentsAnswer>('components', entry.self ? '' : entry.url).then(
        (answer) => ({ id: entry.id, components: answer.components }),
        () => ({ id: entry.id, components: [] }),
      ),
    ),
  );
  const found: SessionComponent[] = [];
  for (const { id, components } of answers)
    for (const c of components) {
      const same = found.find((f) => f.name === c.name && f.address === c.address);
      if (same === undefined) found.push({ ...c, users: [id] });
      else if (!same.users.includes(id)) same.users.push(id);
    }
  return found;
}

/** One row of the list: the service, its links, whether this one may call it, and its check. */
function serviceRow(answer: ServicesAnswer, entry: ServiceEntry, found: Probe): HTMLLIElement {
  const call = entry.self
    ? h('span', { class: 'svc-call muted', text: 'this service (this page)' })
    : entry.enabled
      ? h('span', {
          class: 'svc-call svc-enabled',
          title: `innerCall of ${answer.self} enables it`,
          text: `callable: http://${innerCallHost(answer.self, entry.id)}/`,
        })
      : h('span', {
          class: 'svc-call svc-refused muted',
          title: `add "${entry.id}" to innerCall in ${answer.self}'s cloudfn.config.json to call it`,
          text: `not in innerCall: ${answer.self}'s calls to it are refused`,
        });
  return h(
    'li',
    { class: entry.self ? 'svc svc-self' : 'svc', 'data-service': entry.id },
    h(
      'div',
      {},
      h('strong', { class: 'svc-id', text: entry.id }),
      ' ',
      h('span', { class: 'svc-url', text: entry.url }),
    ),
    h(
      'div',
      {},
      entry.self
        ? null
        : h('a', { class: 'svc-console', href: entry.console, target: '_blank', rel: 'noopener', text: 'console' }),
      entry.self ? null : ' · ',
      call,
    ),
    h('div', { class: `svc-status svc-${found.state}`, text: found.text }),
  );
}

/**
 * Fills `#services` and keeps the checks current.
 * @example startServicesPanel()
 */
export function startServicesPanel(): void {
  const root = byId('services');
  const list = h('ul', { class: 'fn-list svc-list' });
  const components = h('ul', { class: 'fn-list svc-components' });
  let answer: ServicesAnswer | undefined;
  const found = new Map<string, Probe>();
  let round = 0;

  const render = (): void => {
    if (answer === undefined) return;
    const current = answer;
    const missing = current.innerCall.filter((id) => !current.services.some((s) => s.id === id));
    replace(
      list,
      ...current.services.map((entry) =>
        serviceRow(current, entry, found.get(entry.id) ?? { state: 'checking', text: 'checking…' }),
      ),
      ...missing.map((id) =>
        h(
          'li',
          { class: 'svc svc-missing', 'data-service': id },
          h('strong', { class: 'svc-id', text: id }),
          h('div', {
            class: 'svc-status svc-down',
            text: `in innerCall, not in this session: calls to http://${innerCallHost(current.self, id)}/ fail`,
          }),
        ),
      ),
      current.services.length === 1
        ? h('li', {
            class: 'muted',
            text: 'one service: cloudfn dev <folder> <folder>… runs several (docs/services.md)',
          })
        : null,
    );
  };

  const check = async (): Promise<void> => {
    const mine = ++round;
    try {
      answer = await getJson<ServicesAnswer>('services');
    } catch (error) {
      replace(list, h('li', { class: 'problem', text: (error as Error).message }));
      void showComponents();
      return;
    }
    render();
    void showComponents();
    await Promise.all(
      answer.services.map(async (entry) => {
        const result = await probe(entry);
        if (mine !== round) return;
        found.set(entry.id, result);
        render();
      }),
    );
  };

  const showComponents = async (): Promise<void> => {
    const services = answer?.services ?? [];
    const all = await sessionComponents(
      services.length === 0 ? [{ id: '', url: '', console: '', self: true, enabled: false }] : services,
    );
    const alone = services.length <= 1;
    replace(
      components,
      ...(all.length === 0
        ? [
            h('li', {
              class: 'muted',
              text: alone
                ? 'none (components in cloudfn.config.json)'
                : 'none in this session (components in cloudfn.config.json)',
            }),
          ]
        : all.map((c) =>
            h(
              'li',
              { 'data-component': c.name, 'data-users': c.users.join(' ') },
              h('strong', { text: c.name }),
              ' ',
              h('span', { class: 'svc-address', text: c.address === '' ? '(no address)' : c.address }),
              alone ? null : h('span', { class: 'svc-users', text: ` used by ${c.users.join(', ')}` }),
              c.state === undefined
                ? null
                : h('span', {
                    class: `comp-state comp-${c.state}`,
                    title: c.detail ?? '',
                    text: ` ${c.state}${c.detail === undefined ? '' : ` (${c.detail})`}`,
                  }),
              c.dir === undefined ? null : h('span', { class: 'muted', text: ` data in ${c.dir}` }),
            ),
          )),
    );
    // A server being restarted is looked at again soon, until it runs or is given up on.
    if (all.some((c) => c.state === 'restarting')) setTimeout(() => void showComponents(), RESTARTING_RECHECK_MS);
  };

  replace(
    root,
    h('button', { class: 'link svc-check', text: 'check', onclick: () => void check() }),
    list,
    h('h3', { text: 'Components' }),
    components,
  );
  void check();
  // Each check shows the components again (their states, and the neighbours that answer).
  setInterval(() => {
    if (document.visibilityState === 'visible') void check();
  }, RECHECK_MS);
}
