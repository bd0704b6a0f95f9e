/**
 * The source of the typed client `cloudfn client` writes: one method per function, nested by
 * folder (`videos/list` → `api.videos.list(params)`), its params and result either written out
 * in the file (`types`, computed by client-types.ts: the file stands alone) or read from the
 * function's module through type-only imports (for a monorepo whose mini-program can read the
 * server's files), and a few lines that make the call through any `callContainer(options)` of
 * the platform contract's shape. Nothing of the server is imported at run time, so a
 * mini-program bundle carries only this file.
 */
import { dirname, join, relative, sep } from 'node:path';

/** A function the client calls. */
export interface ClientFunction {
  /** `videos/list`. */
  name: string;
  /** The source file, relative to the project root. */
  file: string;
}

/** Where the client goes and what it reads. */
export interface ClientSourceOptions {
  /** The project root (absolute). */
  root: string;
  /** The client file (absolute). */
  out: string;
  /**
   * Each function's params and result as standalone type text, by name (client-types.ts); when
   * absent, the types are read from the functions' modules with `typeof import`.
   * @default undefined
   */
  types?: ReadonlyMap<string, { params: string; result: string }>;
}

/** `media-tour` → `mediaTour`: a member name a caller can write with a dot. */
export function memberName(segment: string): string {
  const camel = segment.replace(/[^A-Za-z0-9_$]+([A-Za-z0-9_$]?)/g, (_all, next: string) => next.toUpperCase());
  return /^[A-Za-z_$]/.test(camel) ? camel : `_${camel}`;
}

/** The import specifier of a function module from the client file, with the extension Node resolves. */
export function specifier(options: ClientSourceOptions, file: string): string {
  let path = relative(dirname(options.out), join(options.root, file)).split(sep).join('/');
  path = path
    .replace(/\.mts$/, '.mjs')
    .replace(/\.cts$/, '.cjs')
    .replace(/\.ts$/, '.js');
  return path.startsWith('.') ? path : `./${path}`;
}

/**
 * The names of each function's types, in the order given: `leaderboard/top` →
 * `LeaderboardTop` (`LeaderboardTopParams`, `LeaderboardTopResult`), behind `prefix` when given
 * (a service's id in an app's client: `RankLeaderboardTop`); a name taken twice gets its
 * position added.
 */
export function typeNames(functions: readonly ClientFunction[], prefix = ''): string[] {
  const taken = new Set<string>();
  return functions.map((fn, index) => {
    const base = `${prefix}/${fn.name}`
      .split(/[^A-Za-z0-9]+/)
      .filter((part) => part !== '')
      .map((part) => part[0]!.toUpperCase() + part.slice(1))
      .join('');
    let name = /^[A-Za-z]/.test(base) ? base : `Fn${base}`;
    if (taken.has(name)) name = `${name}${index}`;
    taken.add(name);
    return name;
  });
}

export interface Node {
  fn?: { index: number; name: string; file: string; type: string };
  children: Map<string, Node>;
}

/** The tree of members: a function that is also a folder (`videos` and `videos/list`) becomes `videos.index`. */
export function tree(functions: readonly ClientFunction[], types: readonly string[] = typeNames(functions)): Node {
  const root: Node = { children: new Map() };
  functions.forEach((fn, index) => {
    let node = root;
    for (const segment of fn.name.split('/').map(memberName)) {
      let child = node.children.get(segment);
      if (child === undefined) node.children.set(segment, (child = { children: new Map() }));
      node = child;
    }
    node.fn = { index, name: fn.name, file: fn.file, type: types[index]! };
  });
  return root;
}

export function typeLines(node: Node, indent: string): string[] {
  const lines: string[] = [];
  for (const [key, child] of node.children) {
    if (child.children.size === 0 && child.fn !== undefined) {
      lines.push(`${indent}/** \`${child.fn.name}\` (${child.fn.file}) */`);
      lines.push(`${indent}${key}(...args: Args<${child.fn.type}Params>): Promise<${child.fn.type}Result>;`);
      continue;
    }
    lines.push(`${indent}${key}: {`);
    if (child.fn !== undefined) {
      lines.push(`${indent}  /** \`${child.fn.name}\` (${child.fn.file}) */`);
      lines.push(`${indent}  index(...args: Args<${child.fn.type}Params>): Promise<${child.fn.type}Result>;`);
    }
    lines.push(...typeLines(child, `${indent}  `), `${indent}};`);
  }
  return lines;
}

/** The methods, each calling through the ContainerCaller named `cloud`. */
export function valueLines(node: Node, indent: string, cloud = 'cloud'): string[] {
  const lines: string[] = [];
  const method = (fn: NonNullable<Node['fn']>) =>
    `(params?: unknown, options?: CallOptions) => call(${cloud}, ${JSON.stringify(fn.name === 'index' ? '/' : `/${fn.name}`)}, params, options)`;
  for (const [key, child] of node.children) {
    if (child.children.size === 0 && child.fn !== undefined) {
      lines.push(`${indent}${key}: ${method(child.fn)},`);
      continue;
    }
    lines.push(`${indent}${key}: {`);
    if (child.fn !== undefined) lines.push(`${indent}  index: ${method(child.fn)},`);
    lines.push(...valueLines(child, `${indent}  `, cloud), `${indent}},`);
  }
  return lines;
}

/**
 * The types read from each function module, written into the client so that it depends on no
 * package: one conditional per function and side, no recursion over the project, so many
 * functions check fast. \`ClientParams\` and \`ClientResult\` are exported for the caller's own types.
 */
export const TYPE_HELPERS = `// biome-ignore lint/suspicious/noExplicitAny: matches a handler whatever its params
type AnyFunction = (params: any, ...rest: any[]) => unknown;
type Schema = { readonly '~standard': { readonly types?: { readonly input: unknown; readonly output: unknown } | undefined } };
type Input<S extends Schema> = NonNullable<S['~standard']['types']>['input'];
type Output<S extends Schema> = NonNullable<S['~standard']['types']>['output'];
type ConfigOf<M> = M extends { config: infer C } ? C : M extends { default: { config: infer C } } ? C : undefined;
/** What JSON.parse(JSON.stringify(value)) gives back. */
type Json<T> = T extends string | number | boolean | null
  ? T
  : T extends undefined | symbol | AnyFunction
    ? never
    : T extends { toJSON(): infer J }
      ? J
      : T extends readonly (infer E)[]
        ? Json<E>[]
        : T extends object
          ? { [K in keyof T as T[K] extends undefined | symbol | AnyFunction ? never : K]: Json<T[K]> }
          : unknown;
/** What a caller sends to the function of module M: the input of config.params, else the handler's own params. */
export type ClientParams<M> = ConfigOf<M> extends { params: infer S extends Schema }
  ? Input<S>
  : M extends { default: (params: infer P, ...rest: never[]) => unknown }
    ? unknown extends P
      ? Record<string, unknown> | undefined
      : P
    : unknown;
/** What a caller receives from the function of module M: the output of config.result, else the handler's return, as JSON. */
export type ClientResult<M> = ConfigOf<M> extends { result: infer S extends Schema }
  ? Json<Output<S>>
  : M extends { default: infer H extends AnyFunction }
    ? Json<Awaited<ReturnType<H>>>
    : unknown;
`;

/**
 * What every client holds beside its methods: the call's options, `ContainerCaller` (anything
 * with the platform's `callContainer`), `FunctionCallError` and the one `call` all methods share.
 */
export const CALL_SOURCE = `/** The options of one call. */
export interface CallOptions {
  /** POST sends params as a JSON body; GET sends them as the query string (text: coerce in the schema). @default 'POST' */
  method?: 'GET' | 'POST';
  /** Request headers. */
  header?: Record<string, string>;
  /** Milliseconds before the call fails. */
  timeout?: number;
}

/** Params may be left out when the function needs none. */
// biome-ignore lint/complexity/noBannedTypes: {} is what an empty params object satisfies
type Args<P> = {} extends P ? [params?: P, options?: CallOptions] : [params: P, options?: CallOptions];

/** Anything with the platform's \`callContainer(options)\`: a mini-program's cloud object, or cloudfn/client's client. */
export interface ContainerCaller {
  callContainer(options: {
    path: string;
    init?: { method?: string; header?: Record<string, string>; body?: unknown; timeout?: number };
    success?: (response: { statusCode: number; data: unknown; header?: Record<string, string> }) => void;
    fail?: (failure: { errMsg?: string; message?: string; code?: string | number }) => void;
  }): unknown;
}

/** A call answered with an error status: the error body's code, message, logid and issues. */
export class FunctionCallError extends Error {
  override name = 'FunctionCallError';
  readonly statusCode: number;
  readonly code: string;
  readonly logid: string;
  /** With CLOUDFN_BAD_PARAMS: one entry per problem, \`path\` a JSON Pointer into params. */
  readonly issues: readonly { path: string; message: string }[];
  constructor(statusCode: number, data: unknown) {
    const error = (data as { error?: { code?: unknown; message?: unknown; logid?: unknown; issues?: unknown } } | null)?.error;
    super(typeof error?.message === 'string' ? error.message : \`the function answered \${statusCode}\`);
    this.statusCode = statusCode;
    this.code = typeof error?.code === 'string' ? error.code : 'HTTP_' + statusCode;
    this.logid = typeof error?.logid === 'string' ? error.logid : '';
    this.issues = Array.isArray(error?.issues) ? (error.issues as { path: string; message: string }[]) : [];
  }
}

function call(cloud: ContainerCaller, path: string, params: unknown, options: CallOptions | undefined): Promise<unknown> {
  return new Promise((resolve, reject) => {
    cloud.callContainer({
      path,
      init: {
        method: options?.method ?? 'POST',
        ...(options?.header === undefined ? {} : { header: options.header }),
        ...(params === undefined ? {} : { body: params }),
        ...(options?.timeout === undefined ? {} : { timeout: options.timeout }),
      },
      success: (response) =>
        response.statusCode >= 400 ? reject(new FunctionCallError(response.statusCode, response.data)) : resolve(response.data),
      fail: (failure) => reject(new Error(failure.errMsg ?? failure.message ?? 'the call failed')),
    });
  });
}
`;

/**
 * The client's TypeScript source.
 * @example writeFileSync(out, clientSource(project.functions, { root, out }))
 */
export function clientSource(functions: readonly ClientFunction[], options: ClientSourceOptions): string {
  const sorted = [...functions].sort((a, b) => a.name.localeCompare(b.name));
  const root = tree(sorted);
  const types = options.types;
  const names = typeNames(sorted);
  const head =
    types === undefined
      ? `// Types only come from the functions (\`typeof import\`): nothing of the server is bundled with this file,
// and it needs no package of its own (the calling project need not install cloudfn).

${sorted.map((fn, i) => `type M${i} = typeof import(${JSON.stringify(specifier(options, fn.file))});\nexport type ${names[i]}Params = ClientParams<M${i}>;\nexport type ${names[i]}Result = ClientResult<M${i}>;`).join('\n')}

${TYPE_HELPERS}`
      : `// The types are written out here: this file stands alone, with no import of the server's files or packages.

${sorted
  .map((fn, i) => {
    const own = types.get(fn.name) ?? { params: 'unknown', result: 'unknown' };
    return `/** What \`${fn.name}\` takes. */\nexport type ${names[i]}Params = ${own.params};\n/** What \`${fn.name}\` answers. */\nexport type ${names[i]}Result = ${own.result};`;
  })
  .join('\n')}
`;
  return `// Generated by \`cloudfn client\` from the project's functions: do not edit; run it again after a change.
${head}
/** One method per function, nested by folder. */
export interface Api {
${typeLines(root, '  ').join('\n')}
}

${CALL_SOURCE}
/**
 * The functions as methods, called through \`cloud.callContainer\`.
 * @example const api = createClient(cloud); const page = await api.videos.list({ page: 0 });
 */
export function createClient(cloud: ContainerCaller): Api {
  return {
${valueLines(root, '    ').join('\n')}
  } as Api;
}
`;
}
