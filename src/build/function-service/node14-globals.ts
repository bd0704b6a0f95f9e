/**
 * The Node 15+ globals a function-service file's own code uses, found at build time (the
 * function service runs Node 14). Each source file of the project (not node_modules, not
 * cloudfn's own code) is read once through esbuild with every listed global defined to a
 * marker: esbuild replaces only free references (a local `fetch` parameter is not one, nor a
 * type, nor `globalThis.fetch`), so a marker in the output is a real use. Then, per global:
 *
 * - **provided, only to the files that use them**: `fetch`, `Headers`, `Request`, `Response`,
 *   `AbortController`, `AbortSignal`, `FormData`, `Blob` (src/fetch-fallback/web-globals.ts,
 *   imported on the file's first line, so line numbers stay);
 * - **provided to every file** by runtime/function-service/node14-apis.ts, which the adapter
 *   loads: `structuredClone`, `performance`, `Object.hasOwn`, `Array.prototype.at`,
 *   `findLast`, `findLastIndex`, `String.prototype.at`, `replaceAll` (a few hundred bytes);
 * - **refused** (REFUSED): the build stops with CLOUDFN_NODE14_GLOBAL naming the file, the line
 *   and the fix.
 */
import { readFile } from 'node:fs/promises';
import { dirname, relative, sep } from 'node:path';
import { type Loader, type Plugin, transform } from 'esbuild';
import { ownFile } from '../../own-package.js';

/** The globals provided to the files that use them: fetch and what comes with it. */
export const FETCH_GLOBALS = [
  'fetch',
  'Headers',
  'Request',
  'Response',
  'AbortController',
  'AbortSignal',
  'FormData',
  'Blob',
] as const;

/** The globals refused, each with its fix. */
export const REFUSED: Readonly<Record<string, string>> = {
  crypto: "import { randomUUID, createHash } from 'node:crypto' instead",
  ReadableStream: "use node:stream's Readable instead (Readable.from(...))",
  WritableStream: "use node:stream's Writable instead",
  TransformStream: "use node:stream's Transform instead",
  CompressionStream: 'use node:zlib (createGzip) instead',
  DecompressionStream: 'use node:zlib (createGunzip) instead',
  WebSocket: "use the ws package (import WebSocket from 'ws') instead",
  BroadcastChannel: 'pass messages through Redis or another service instead',
  EventTarget: "use node:events' EventEmitter instead",
  Event: "use node:events' EventEmitter and plain objects instead",
  File: 'use a Buffer, or Blob (provided) with a name beside it, instead',
  DOMException: "throw an Error with a name (Object.assign(new Error(msg), { name: 'AbortError' })) instead",
  navigator: 'read what you need from node:os or process instead',
};

const MARK = '__cloudfn_node14_global_';
const LOADERS: Record<string, Loader> = {
  ts: 'ts',
  mts: 'ts',
  cts: 'ts',
  tsx: 'tsx',
  js: 'js',
  mjs: 'js',
  cjs: 'js',
  jsx: 'jsx',
};

/** One refused use. */
export interface RefusedGlobal {
  /** `functions/id.ts:3`, relative to the project's root. */
  where: string;
  name: string;
  fix: string;
}

/** The 1-based line of the first free-looking use of `name` in `source`. */
function lineOf(source: string, name: string): number {
  const word = new RegExp(`(?<![\\w$.])${name}(?![\\w$])`);
  const lines = source.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!.replace(/\/\/.*$/, '');
    if (/^\s*(import|export)\s.*\bfrom\b/.test(text) || /^\s*(\*|\/\*)/.test(text)) continue;
    if (word.test(text)) return i + 1;
  }
  return 1;
}

/** What the esbuild plugin found, across every file it built. */
export class Node14Globals {
  readonly refused: RefusedGlobal[] = [];
  /** The files (relative) given the fetch globals. */
  readonly provided = new Set<string>();
  readonly #root: string;
  readonly #codeRoot: string;
  readonly #seen = new Map<string, { contents: string; loader: Loader }>();

  constructor(root: string) {
    this.#root = root;
    this.#codeRoot = dirname(dirname(ownFile('src/index'))) + sep;
  }

  /** The esbuild plugin; put it before any plugin that loads the project's files. */
  plugin(): Plugin {
    return {
      name: 'cloudfn-node14-globals',
      setup: (build) => {
        build.onLoad({ filter: /\.(m|c)?(t|j)sx?$/ }, async (args) => {
          if (args.namespace !== 'file' || args.path.includes(`${sep}node_modules${sep}`)) return undefined;
          if (args.path.startsWith(this.#codeRoot) && !args.path.startsWith(this.#root)) return undefined;
          const loader = LOADERS[args.path.slice(args.path.lastIndexOf('.') + 1)];
          if (loader === undefined) return undefined;
          const cached = this.#seen.get(args.path);
          if (cached !== undefined) return cached;
          const source = await readFile(args.path, 'utf8');
          const names = [...FETCH_GLOBALS, ...Object.keys(REFUSED)];
          const define = Object.fromEntries(names.map((name) => [name, `${MARK}${name}`]));
          let code: string;
          try {
            code = (await transform(source, { loader, define, sourcefile: args.path, logLevel: 'silent' })).code;
          } catch {
            // A syntax error: esbuild's own load reports it with its frame.
            return undefined;
          }
          const used = names.filter((name) => code.includes(`${MARK}${name}`));
          const file = relative(this.#root, args.path);
          for (const name of used.filter((n) => REFUSED[n] !== undefined))
            this.refused.push({ where: `${file}:${lineOf(source, name)}`, name, fix: REFUSED[name]! });
          let contents = source;
          if (used.some((name) => (FETCH_GLOBALS as readonly string[]).includes(name))) {
            this.provided.add(file);
            const module = JSON.stringify(ownFile('src/fetch-fallback/web-globals'));
            // On the first line, so that every line of the file keeps its number; ESM or CommonJS as the file is.
            const line = /^\s*(import|export)\s/m.test(source) ? `import ${module};` : `require(${module});`;
            const shebang = source.startsWith('#!') ? source.slice(0, source.indexOf('\n') + 1) : '';
            contents = `${shebang}${line}${source.slice(shebang.length)}`;
          }
          const result = { contents, loader };
          this.#seen.set(args.path, result);
          return result;
        });
      },
    };
  }
}
