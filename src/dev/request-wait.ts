/**
 * The dev server's wait for a save (docs/dev.md#reload): while a change is being applied, a
 * request to a function the change rebuilds waits for that function, so it runs the saved code;
 * a request to any other function goes ahead at once. The load is bounded by the `loadTimeout`
 * option: a function whose module never finishes loading is marked failed by then
 * (load-bound.ts), and the request gets its error rather than hanging. The wait itself is bounded
 * by twice that: the load's bound starts only once the build before it is done, so a request
 * made the instant a new file is saved must not give up first (it would meet no function: 404).
 */
import type { App } from '../../runtime/app.js';
import type { IncomingMessage } from 'node:http';
import { atMost } from './load-bound.js';
import type { Reloader } from './reloader.js';

/**
 * The reload's `onRequest`: a promise holding a request while the function it targets is being
 * reloaded, or undefined when nothing is (the request goes ahead at once).
 * @example const extension = { name: 'reload', onRequest: waitForTarget(app, reloader) }
 */
export function waitForTarget(app: App, loader: Reloader): (req: IncomingMessage) => Promise<void> | undefined {
  return (req) => {
    if (!loader.busy) return undefined;
    return atMost(loader.ready(targetOf(app, req.url ?? '/')), 2 * loader.loadTimeoutMs);
  };
}

/** The name of the function a URL reaches: a custom route's target, else the name in its path. */
function targetOf(app: App, url: string): string {
  const query = url.indexOf('?');
  const raw = query === -1 ? url : url.slice(0, query);
  let path = raw;
  try {
    path = decodeURIComponent(raw);
  } catch {
    // A bad escape is the router's to answer (400); the wait only needs a best guess.
  }
  const routed = app.router.match(raw, path);
  if (routed !== undefined) return routed.fn.name;
  const name = path.replace(/^\/+|\/+$/g, '');
  return name === '' ? 'index' : name;
}
