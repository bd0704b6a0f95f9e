/**
 * Loading mingo, the stand-in's query engine, on the first database call (it takes about 190 ms
 * to load, measured on Node 20, 2 cores, so a function that only reads getContext() does not pay
 * for it). When `cloudfn build` bundles the stand-in into a container (`"sdk": "stand-in"`),
 * esbuild hands mingo's CommonJS build to the dynamic import as `default` only: the named
 * exports are read from there then.
 */
type Mingo = typeof import('mingo');

let engine: Promise<Mingo> | undefined;

/**
 * mingo's exports, once per process.
 * @example const { Query } = await loadMingo()
 */
export function loadMingo(): Promise<Mingo> {
  engine ??= import('mingo').then((module) =>
    typeof module.aggregate === 'function' ? module : (module as unknown as { default: Mingo }).default,
  );
  return engine;
}
