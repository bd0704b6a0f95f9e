/**
 * The contracts under `cloudfn dev`: `${CLOUDFN_PREFIX}/openapi.json`, the OpenAPI document of the
 * functions as they are served now (the console's forms read it), and, when asked
 * (`--client <file>`), the typed client written again whenever the set of functions changes.
 */
import { CLOUDFN_PREFIX } from '../../runtime/options.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { App } from '../../runtime/app.js';
import { RUNTIME_FUNCTION } from '../../runtime/log/record.js';
import type { Logger } from '../../runtime/log/logger.js';
import type { RouteHandler } from '../../runtime/serve/extension.js';
import { clientSource } from '../contract/client-source.js';
import { openApiDocument } from '../contract/openapi.js';

/** Where the dev server serves the document. */
export const OPENAPI_PATH = `${CLOUDFN_PREFIX}/openapi.json`;

/**
 * Answers GET ${CLOUDFN_PREFIX}/openapi.json from the functions the app serves.
 * @example const routes = { 'openapi.json': openApiRoute(app, root) }
 */
export function openApiRoute(app: App, root: string): RouteHandler {
  return (_req, res) => {
    const functions = app.router
      .list()
      .map((fn) => ({ name: fn.name, file: fn.file, handler: fn.handler, config: fn.config }));
    openApiDocument(functions, { root, title: 'cloudfn dev' }).then(
      (document) => {
        const body = JSON.stringify(document);
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(body),
        });
        res.end(body);
      },
      (error: unknown) => {
        const body = JSON.stringify({ error: { code: 'CLOUDFN_HANDLER_ERROR', message: String(error), logid: '' } });
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(body);
      },
    );
  };
}

/** What `writeDevClient` needs. */
export interface DevClientOptions {
  root: string;
  /** The client file (absolute). */
  out: string;
  logger: Logger;
}

/**
 * Writes the client for `functions` when its text changed (so a watcher of the calling project
 * sees a change only when there is one); returns whether it wrote.
 * @example writeDevClient(loader.list(), { root, out, logger })
 */
export function writeDevClient(
  functions: readonly { name: string; file: string }[],
  options: DevClientOptions,
): boolean {
  const text = clientSource(functions, { root: options.root, out: options.out });
  if (existsSync(options.out) && readFileSync(options.out, 'utf8') === text) return false;
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, text);
  options.logger.line(
    'info',
    '',
    RUNTIME_FUNCTION,
    `wrote the client ${options.out} (${functions.length} function${functions.length === 1 ? '' : 's'})`,
  );
  return true;
}
