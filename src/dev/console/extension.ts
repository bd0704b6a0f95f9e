/**
 * The dev console as an extension of the dev server (runtime/serve/extension.ts): every
 * request's summary reaches its feed, and its routes answer the OpenAPI document and, for every
 * path under the prefix no other extension declares, the console's page and API (with the
 * panels of every other extension).
 */
import type { Extension } from '../../../runtime/serve/extension.js';
import type { ExtensionPanel, ServiceExtension } from '../../local-service.js';
import type { DevUser } from '../../../runtime/shapes.js';
import { openApiRoute } from '../contract.js';
import { type ConsoleAssets, loadConsoleAssets } from './assets.js';
import type { EventHub } from './event-hub.js';
import type { FunctionStatus } from './protocol.js';
import { createConsoleHandler } from './routes.js';

/** What the console's extension reads. */
export interface ConsoleExtensionOptions {
  root: string;
  hub: EventHub;
  devUser: DevUser;
  /** The header the page sends to mark its requests `console_debug`. */
  triggerHeader: string;
  functions: () => FunctionStatus[];
  /** The other extensions, whose panels the console shows. */
  extensions: () => readonly ServiceExtension[];
}

/**
 * The console's extension.
 * @example const console = consoleExtension({ root, hub, devUser, triggerHeader, functions, extensions })
 */
export function consoleExtension(options: ConsoleExtensionOptions): Extension {
  let assets: Promise<ConsoleAssets> | undefined;
  const load = (): Promise<ConsoleAssets> => (assets ??= loadConsoleAssets());
  return {
    name: 'console',
    prepare(app) {
      app.observers.add((info) => options.hub.request(info));
      // Bundling the page takes a moment: start now, serve when asked.
      load().catch(() => undefined);
    },
    routes(app) {
      const handler = createConsoleHandler({
        app,
        hub: options.hub,
        functions: options.functions,
        panels: options
          .extensions()
          .map((extension) => extension.panel)
          .filter((panel): panel is ExtensionPanel => panel !== undefined),
        assets: load,
        triggerHeader: options.triggerHeader,
        devUser: options.devUser,
      });
      // The page and its API take every path under the prefix no other extension declares.
      return { 'openapi.json': openApiRoute(app, options.root), '': (req, res) => handler(req, res) };
    },
    close: () => options.hub.close(),
  };
}
