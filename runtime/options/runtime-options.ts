/**
 * `RuntimeOptions`, the type of every resolved runtime option, each with its flag, environment
 * variable and default; runtime/options.ts reads them and exports the type.
 */
import type { Limits, LimitSources, Trigger } from '../types.js';

/** Options of a running server. Sizes are bytes, times milliseconds. */
export interface RuntimeOptions {
  /** Port to listen on (`--port`, `PORT`). @default 8000 */
  port: number;
  /** Address to listen on (`--host`, `HOST`). @default '0.0.0.0' */
  host: string;
  /**
   * Under `cloudfn dev` (and `cloudfn platform`): the `Host` names answered besides the loopback
   * names and `host`, e.g. a tunnel's or the machine's LAN name; a leading dot takes every
   * subdomain. `true` answers any `Host`, which opens the server to DNS rebinding
   * (docs/dev.md#who-may-call-the-dev-server). `cloudfn start` does not read it
   * (`CLOUDFN_ALLOWED_HOSTS`). @default []
   */
  allowedHosts: readonly string[] | true;
  /** Time a call may take before it is answered 504 (`CLOUDFN_TIMEOUT`). @default 60000 */
  timeout: number;
  /** Body and multipart limits, also settable per function. */
  limits: Limits;
  /**
   * Where each limit came from (`--max-params`, `CLOUDFN_MAX_PARAMS`, `cloudfn.config
   * limits.maxParams`, `the default`), for the messages of the errors the limits raise.
   * @default undefined (messages say "the default")
   */
  limitSources?: LimitSources;
  /** Largest request head; larger gets 431 (`CLOUDFN_MAX_HEADER_SIZE`). @default 16384 */
  maxHeaderSize: number;
  /** Time to receive the request headers; slower gets 408. @default 20000 */
  headersTimeout: number;
  /** Time to receive the whole request; slower gets 408. @default 60000 */
  requestTimeout: number;
  /** Idle time before a keep-alive socket is closed. @default 5000 */
  keepAliveTimeout: number;
  /** Time in-flight requests get to finish after SIGTERM/SIGINT; below Cloud Run's ~10 s grace. @default 8000 */
  shutdownTimeout: number;
  /**
   * The lame-duck period after SIGTERM (`CLOUDFN_DRAIN_DELAY`): the health paths answer 503 at
   * once while requests are still served, so balancers stop sending before the port closes;
   * then the `shutdownTimeout` drain begins. 0 refuses at once (docs/deploy.md#zero-downtime-deploys).
   * @default 5000
   */
  drainDelay: number;
  /** Header carrying the log id, in and out (lower case). @default 'x-platform-logid' */
  logidHeader: string;
  /** A trusted gateway header that may set `service.trigger`; unset means none is trusted. @default undefined */
  triggerHeader: string | undefined;
  /** The trigger of requests that do not set one. @default 'online' */
  trigger: Trigger;
  /** What a JSON body with `__proto__`/`constructor.prototype` keys gets: 400, or the keys removed. @default 'error' */
  protoAction: 'error' | 'remove';
  /** Send handler error messages and stacks to clients (dev only). @default false */
  exposeErrors: boolean;
  /**
   * Path answered 200 while serving and 503 while draining, before routing and unlogged
   * (`CLOUDFN_HEALTH_PATH`; `off` turns it off). @default '/_cloudfn/health'
   */
  healthPath: string | undefined;
  /**
   * A second path answered as the health path: the one the platform's container services
   * probe (`CLOUDFN_PING_PATH`; `off` turns it off). @default '/v1/ping'
   */
  pingPath: string | undefined;
  /**
   * Serve Prometheus text at `/_cloudfn/metrics` (`--metrics`, `CLOUDFN_METRICS`); off, the
   * path is not answered and prom-client is not loaded (docs/observability.md#metrics).
   * @default false
   */
  metrics: boolean;
  /**
   * Bytes of request bodies held in memory and of answers not yet sent, across requests; a
   * request that would pass it is refused 503 with `Retry-After` before its body is read
   * (`--memory-budget`, `CLOUDFN_MEMORY_BUDGET`; 0 is no limit). @default 134217728 (128 MiB)
   */
  memoryBudget: number;
  /**
   * Time an answer may wait for a client that does not read it before the connection is
   * closed (`--send-timeout`, `CLOUDFN_SEND_TIMEOUT`; 0 is no limit). @default 10000
   */
  sendTimeout: number;
  /**
   * Open connections; a request on one opened past it is answered 503 with `Retry-After`
   * (`--max-connections`, `CLOUDFN_MAX_CONNECTIONS`; 0 is no limit). @default 1024
   */
  maxConnections: number;
  /**
   * Time a request body that does not fit the memory budget waits, unread, for room before it
   * is refused 503 (`--memory-wait-timeout`, `CLOUDFN_MEMORY_WAIT_TIMEOUT`; 0 refuses at once).
   * @default 10000
   */
  memoryWaitTimeout: number;
  /**
   * Percent of `maxConnections` or of `memoryBudget` past which the app is under pressure and
   * shortens its timeouts (`--overload-threshold`, `CLOUDFN_OVERLOAD_THRESHOLD`; 0 never).
   * @default 80
   */
  overloadThreshold: number;
  /** `headersTimeout` under pressure (`CLOUDFN_OVERLOAD_HEADERS_TIMEOUT`). @default 5000 */
  overloadHeadersTimeout: number;
  /** `keepAliveTimeout` under pressure (`CLOUDFN_OVERLOAD_KEEP_ALIVE_TIMEOUT`). @default 1000 */
  overloadKeepAliveTimeout: number;
  /**
   * `sendTimeout` under pressure; also how long an answer must have gone unread before it may
   * be cut to make room for a small request (`CLOUDFN_OVERLOAD_SEND_TIMEOUT`). @default 2000
   */
  overloadSendTimeout: number;
  /**
   * The folder functions are found in, relative to the project root (`--functions-dir`,
   * `CLOUDFN_FUNCTIONS_DIR`); `.` is the root itself, as in the platform's own templates
   * (docs/platform-projects.md). @default 'functions'
   */
  functionsDir: string;
  /**
   * Paths (relative to the project root, `.gitignore`-style: `scripts`, `tools/*.ts`, `*.mjs`)
   * that discovery never takes as functions (`CLOUDFN_FUNCTIONS_IGNORE`, comma-separated), on
   * top of those it always skips; with `functionsDir: "."` it also skips `scripts`, `tools`,
   * `bin` and what `.gitignore` lists (docs/platform-projects.md#the-layout). @default []
   */
  functionsIgnore: readonly string[];
  /**
   * `cloudfn dev`: ms a function's module may take to load (its top-level await to settle)
   * before it is marked failed and the requests waiting for it are answered
   * (`CLOUDFN_LOAD_TIMEOUT`). @default 10000
   */
  loadTimeout: number;
  /**
   * Trust the headers only the platform sets (runtime/request/gateway-headers.ts: the caller's
   * `X-TT-OPENID`, `X-TT-APPID`, ..., the live room's, the WebSocket gateway's, the live-data
   * line's and `x-tt-logid`) a request carries (`CLOUDFN_TRUST_GATEWAY_HEADERS`). Only behind the
   * platform's gateway, which sets them; off, they are removed before the handler runs, so no
   * client can claim another user, room or connection (docs/decisions.md). @default false
   */
  trustGatewayHeaders: boolean;
  /**
   * Which `@open-dy/node-server-sdk` the container bundles of `cloudfn build` carry
   * (`CLOUDFN_SDK`, `--sdk`): `platform`, the real package, installed from the platform's
   * registry and bundled in (images the platform builds); `stand-in`, cloudfn's local stand-in
   * bundled in (images that run anywhere else). The function-service target always leaves it to
   * the platform (docs/platform-projects.md#cloudfn-build). @default 'platform'
   */
  sdk: 'platform' | 'stand-in';
  /**
   * Turn `console.log/info/warn/error/debug` into JSON log lines with the logid of the request
   * that made them (`CLOUDFN_CAPTURE_CONSOLE`). @default true
   */
  captureConsole: boolean;
  /**
   * Where the other services of a self-hosted fleet listen, by service id (`http://host:port`),
   * for calls to `http://{SERVICE_ID}-{id}.inner-call.dyc.ivolces.com` (docs/services.md).
   * `CLOUDFN_INNER_CALL_<ID>` variables add to it. @default {} (on the platform, its DNS answers)
   */
  innerCallUrls: Readonly<Record<string, string>>;
}
