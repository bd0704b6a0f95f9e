/**
 * The lines every ES module file of a bundle starts with. CommonJS dependencies bundled into ESM
 * still call `require` and read `__dirname`; the banner provides them under names esbuild keeps
 * apart from the user's own top-level declarations. `process.getBuiltinModule` and
 * `import.meta.dirname` (node 20.16 and 20.11) rather than imports of node:module, node:url and
 * node:path: an ESM import of a builtin builds its namespace from every export, 0.4 ms of each
 * cold start for these three.
 *
 * `require` is made on its first use: `createRequire` costs 0.35-0.6 ms (node 20 and 24), and
 * the hello bundle requires nothing before its first request. Until then it is a stand-in
 * (a Proxy over a function) that makes the real one when called or read (`require.resolve`,
 * `require.cache`), so every use of the real one works through it.
 */

/** The name the folded entry gives `require` (fold-chunks.ts), so esbuild wraps it in nothing. */
export const FOLDED_REQUIRE = '__cloudfn_require';

/**
 * The banner, declaring `require` under `requireName`.
 * @example bundleBanner() // "let __cloudfn_made; …\nconst require = new Proxy(…"
 */
export function bundleBanner(requireName = 'require'): string {
  return [
    `let __cloudfn_made;`,
    `const __cloudfn_real = () => (__cloudfn_made ??= process.getBuiltinModule('node:module').createRequire(import.meta.url));`,
    `const ${requireName} = new Proxy(() => {}, { apply: (_, self, args) => Reflect.apply(__cloudfn_real(), self, args), get: (_, key) => __cloudfn_real()[key], has: (_, key) => key in __cloudfn_real() });`,
    `const __cloudfn_filename = import.meta.filename;`,
    `const __cloudfn_dirname = import.meta.dirname;`,
  ].join('\n');
}
