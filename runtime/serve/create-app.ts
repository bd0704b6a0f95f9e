/**
 * `createApp`, the public way to make an app for a server of one's own: every App is made in
 * `runtime/serve/` (here, `serve()` and the in-memory server) or by `invoke`, never by a tool
 * that would assemble a server of its own.
 */
import { App, type AppInit } from '../app.js';

/**
 * Creates an app: the request pipeline for a set of functions, to mount on any node:http server.
 * @example
 * const app = createApp({ functions: [{ name: 'hello', handler: (params) => ({ hi: params.name }) }] });
 * http.createServer(app.handle).listen(8000);
 */
export function createApp(init: AppInit): App {
  return new App(init);
}
