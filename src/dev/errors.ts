/**
 * The dev server's table of error codes (same shape as runtime/errors.ts). Compile errors use
 * the runtime's `CLOUDFN_COMPILE_ERROR`; these rows cover what only `cloudfn dev` does.
 */
import { CLOUDFN_PREFIX } from '../../runtime/options.js';
import type { CloudfnError, CreateError, ErrorSpec } from '../../runtime/errors.js';
import { defineErrorTable, exposedError } from '../../runtime/errors.js';

const table = {
  CLOUDFN_DEV_LOAD_FAILED: {
    status: 500,
    message: (file: string, detail: string) => `${file} compiled but failed to load (fix it and save): ${detail}`,
  },
  CLOUDFN_DEV_LOAD_TIMEOUT: {
    status: 503,
    message: (file: string, after: string) =>
      `${file} did not finish loading: its top-level await has not settled after ${after} (a connect or fetch at top level that never answers?). The other functions keep serving; fix or remove the file and save, or raise loadTimeout`,
  },
  CLOUDFN_DEV_CONSOLE_NOT_FOUND: {
    status: 404,
    message: (path: string) =>
      `the dev console has nothing at ${path}; open ${CLOUDFN_PREFIX}/ for the page or ${CLOUDFN_PREFIX}/api/functions`,
  },
  CLOUDFN_DEV_CONSOLE_METHOD: {
    status: 405,
    message: (method: string) => `method ${method} is not allowed on the dev console; its pages and API answer GET`,
  },
  CLOUDFN_DEV_PAGE_MISSING: {
    status: 500,
    message: (tried: string) =>
      `the console page sources were not found (looked in ${tried}); reinstall cloudfn, or run cloudfn dev from its checkout`,
  },
  CLOUDFN_DEV_HOST_NOT_ALLOWED: {
    status: 403,
    message: (host: string, name: string, setting: string) =>
      `Host ${host} is not allowed: this local server answers its loopback names (localhost, 127.0.0.1, [::1]) and the address it listens on, so that no web page reaches it through a DNS name pointed at this machine; if ${name} is yours (a tunnel, the machine's LAN name), add "${name}" to ${setting}`,
  },
  CLOUDFN_DEV_ORIGIN_NOT_ALLOWED: {
    status: 403,
    message: (method: string, path: string, origin: string) =>
      `${method} ${path} from a page of ${origin} is refused: the console API and the dev routes take writes only from this server's own pages, or from clients that send no Origin (curl, the CLI, tests)`,
  },
  CLOUDFN_DEV_JSON_REQUIRED: {
    status: 415,
    message: (method: string, path: string, type: string) =>
      `${method} ${path} takes a JSON body: send Content-Type: application/json (got ${type})`,
  },
  CLOUDFN_DEV_WS_ORIGIN_NOT_ALLOWED: {
    status: 403,
    message: (origin: string, name: string, setting: string) =>
      `a WebSocket from a page of ${origin} is refused: this local server accepts WebSockets from clients that send no Origin, loopback pages and its own; to let pages of ${name} connect, add "${name}" to ${setting}`,
  },
  CLOUDFN_DEV_SERVICE_ORDER: {
    status: 500,
    message: (value: string) =>
      `CLOUDFN_DEV_SERVICE_ORDER=${value} is not an order: set it to "listed" (the default) or "reversed", or unset it`,
  },
  CLOUDFN_DEV_INSPECT: {
    status: 500,
    message: (spec: string, detail: string) => `--inspect=${spec} could not open the debugger: ${detail}`,
  },
} satisfies Record<string, ErrorSpec>;

export type DevErrorCode = keyof typeof table;

const errors = /* @__PURE__ */ defineErrorTable(table, exposedError);

/** The dev server's error table, exported for the documentation test. */
export const devErrors: Readonly<Record<DevErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code`; its message is shown to the developer, so it is exposed.
 * @example throw createDevError('CLOUDFN_DEV_CONSOLE_NOT_FOUND', `${CLOUDFN_PREFIX}/nope`)
 */
export const createDevError: CreateError<typeof table, CloudfnError> = errors.create;
