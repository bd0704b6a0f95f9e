/**
 * The ablation's variants of cloudfn: copies of the built runtime (`dist/`) with parts of the
 * request path cut out, made here, in the bench, so that the served code names no benchmark
 * switch (issue 57: hono and fastify keep their benchmarks out of `src/` and `lib/`). Each part
 * is a list of patches on the compiled JavaScript of `dist/runtime/`; a patch whose text is not
 * found exactly once fails the bench with the file and the part, so a change to the request path
 * that moves a patched line is caught the next time the ablation runs, not measured wrongly.
 *
 * A variant lives in `node_modules/.cache/cloudfn-ablation/<parts>/dist/`, where the packages the
 * runtime imports resolve from the project's own `node_modules`. The bench's servers import it
 * through `BENCH_CLOUDFN_DIST` (the bench's own variable, read by servers/http-server.mjs and
 * request-path.mjs only).
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The parts, in the order the tables print them. */
export const ABLATION_PARTS = [
  'log',
  'logid',
  'trace',
  'metrics',
  'strip',
  'admission',
  'parse',
  'exchange',
  'headers',
  'router',
];

/** What each part's patches turn off, for the tables. */
export const PART_LABELS = {
  log: 'the request line and its serialization',
  logid: 'logid generation',
  trace: 'trace context (traceparent, ids, their fields in the line)',
  metrics: 'metrics and observers of a finished request',
  strip: 'the gateway-header strip',
  admission: 'admission and limits (connections, memory, timers)',
  parse: 'query and trigger-header parsing into params',
  exchange: 'building the service',
  headers: "the response's headers",
  router: 'the router',
  all: 'all of the above at once',
};

/** Declarations some patches use, put at the end of the file they patch (hoisted functions, lazy consts). */
const NO_QUERY = 'const __ablationNoQuery = Object.freeze(Object.create(null));';
const NO_SERVICE = 'const __ablationNoService = Object.freeze({});';
const LAST_MATCH = `let __ablationLastPath;
let __ablationLastFound;
function __ablationLastMatch(host, rawPath, path) {
  if (rawPath !== __ablationLastPath) {
    __ablationLastPath = rawPath;
    __ablationLastFound = host.router.match(rawPath, path);
  }
  return __ablationLastFound;
}`;

/**
 * Each part's patches: in `file` (under dist/runtime/), `find` (whitespace runs match any
 * whitespace) becomes `replace`; `append` is added once at the end of the file.
 */
export const PATCHES = {
  log: [{ file: 'request/finish.js', find: 'x.host.logger.request({', replace: 'if (false) x.host.logger.request({' }],
  logid: [
    {
      file: 'request/handle.js',
      find: 'new Exchange(host, req, res, options.trustGatewayHeaders ? pickGatewayLogid(req.headers, options.logidHeader) : pickLogid(req.headers[options.logidHeader]));',
      replace: "new Exchange(host, req, res, '0000000000000000ablated0');",
    },
  ],
  trace: [
    {
      file: 'request/exchange.js',
      find: 'const parent = parseTraceparent(req.headers.traceparent);',
      replace: 'const parent = undefined;',
    },
    { file: 'request/exchange.js', find: 'this.traceId = ids.traceId();', replace: "this.traceId = '';" },
    { file: 'request/exchange.js', find: 'this.spanId = ids.spanId();', replace: "this.spanId = '';" },
    { file: 'request/finish.js', find: 'traceId: x.traceId,', replace: 'traceId: undefined,' },
  ],
  metrics: [
    { file: 'app.js', find: 'if (this.#metrics !== undefined)', replace: 'if (false)' },
    { file: 'app.js', find: 'if (this.observers.size > 0) {', replace: 'if (false) {' },
  ],
  strip: [{ file: 'request/handle.js', find: 'if (!options.trustGatewayHeaders &&', replace: 'if (false &&' }],
  admission: [
    {
      file: 'serve/http-server.js',
      find: "server.on('connection', (socket) => connections.opened(socket));",
      replace: '',
    },
    { file: 'serve/http-server.js', find: 'app.overload.attach(server);', replace: '' },
    { file: 'request/handle.js', find: 'host.connections?.refuses(socket) === true', replace: 'false' },
    { file: 'request/handle.js', find: 'const memory = host.memory;', replace: 'const memory = undefined;' },
    { file: 'request/handle.js', find: 'SETTLED.then(() => watch(x));', replace: '' },
    { file: 'request/response-head.js', find: 'if (res.writableLength > 0)', replace: 'if (false)' },
  ],
  parse: [
    { file: 'request/handle.js', find: 'if (triggerHeader !== undefined) {', replace: 'if (false) {' },
    {
      file: 'request/handle.js',
      find: 'query = parseQuery(x.rawQuery, fn.limits.maxParams, fn.limitSources?.maxParams);',
      replace: 'query = __ablationNoQuery;',
      append: NO_QUERY,
    },
  ],
  exchange: [
    {
      file: 'request/handle.js',
      find: 'const service = new RequestService(x, query, body);',
      replace: 'const service = __ablationNoService;',
      append: NO_SERVICE,
    },
  ],
  headers: [
    { file: 'request/response-head.js', find: 'res.writeHead(status, headers);', replace: 'res.statusCode = status;' },
    {
      file: 'request/response.js',
      find: 'headersFor(x, { contentType: type, length: bytes, handlerHeaders: true, close: x.host.closing, allow: false })',
      replace: '[]',
    },
  ],
  router: [
    {
      file: 'request/handle.js',
      find: 'const found = host.router.match(x.rawPath, path);',
      replace: 'const found = __ablationLastMatch(host, x.rawPath, path);',
      append: LAST_MATCH,
    },
  ],
};

/**
 * The parts a list names: `log,trace`, or `all`. An unknown name throws, so a typo fails the
 * bench instead of measuring nothing.
 * @example partsOf('all').length // 10
 */
export function partsOf(list) {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  for (const name of names)
    if (name !== 'all' && !ABLATION_PARTS.includes(name))
      throw new Error(`ablation: no part ${name}; use all or ${ABLATION_PARTS.join(', ')}`);
  return names.includes('all') ? [...ABLATION_PARTS] : ABLATION_PARTS.filter((part) => names.includes(part));
}

/** A string as a regular expression whose whitespace runs match any whitespace. */
function loose(text) {
  return new RegExp(
    text
      .split(/\s+/)
      .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('\\s+'),
    'g',
  );
}

/**
 * Applies the patches of `parts` to the files of a runtime folder in place. Throws, naming the
 * part and the file, when a patch's text is not there exactly once.
 */
export function patchRuntime(runtimeDir, parts) {
  const files = new Map();
  const read = (file) => {
    if (!files.has(file)) files.set(file, { text: readFileSync(join(runtimeDir, file), 'utf8'), append: new Set() });
    return files.get(file);
  };
  for (const part of parts)
    for (const patch of PATCHES[part]) {
      const entry = read(patch.file);
      const found = entry.text.match(loose(patch.find)) ?? [];
      if (found.length !== 1)
        throw new Error(
          `ablation: the ${part} patch finds ${found.length} copies of "${patch.find}" in dist/runtime/${patch.file} ` +
            `(one expected); update test/bench/lib/ablation-variants.mjs to the code of runtime/${patch.file.replace(/\.js$/, '.ts')}`,
        );
      entry.text = entry.text.replace(loose(patch.find), () => patch.replace);
      if (patch.append !== undefined) entry.append.add(patch.append);
    }
  for (const [file, { text, append }] of files)
    writeFileSync(join(runtimeDir, file), [text, ...append].join('\n') + '\n');
}

/**
 * The `dist/` folder of a variant with `parts` turned off, made from the built `dist/` of `root`
 * (this checkout by default); none turned off is `dist/` itself.
 * @example const dist = ablatedDist(['log', 'trace']) // .../node_modules/.cache/cloudfn-ablation/log,trace/dist
 */
export function ablatedDist(parts, root = ROOT) {
  const built = join(root, 'dist');
  if (!existsSync(join(built, 'runtime/index.js')))
    throw new Error('ablation: dist/ is missing: run npm run build first');
  if (parts.length === 0) return built;
  const home = join(root, 'node_modules/.cache/cloudfn-ablation', parts.join(','));
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  const dist = join(home, 'dist');
  cpSync(join(built, 'runtime'), join(dist, 'runtime'), { recursive: true });
  patchRuntime(join(dist, 'runtime'), parts);
  return dist;
}
