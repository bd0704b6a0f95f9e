/**
 * The lines every ES module file of a bundle starts with. CommonJS dependencies bundled into ESM
 * still call `require` and read `__dirname`; the banner provides them under names esbuild keeps
 * apart from the user's own top-level declarations. `process.getBuiltinModule` and
 * `import.meta.dirname` (node 20.16 and 20.11) rather than imports of node:module, node:url and
 * node:path: an ESM import of a builtin builds its namespace from every export, 0.4 ms of each
 * cold start for these three.
 */

/** The name the folded entry gives `require` (fold-chunks.ts), so esbuild wraps it in nothing. */
export const FOLDED_REQUIRE = '__cloudfn_require';

/**
 * The banner, declaring `require` under `requireName`.
 * @example bundleBanner() // "const require = …"
 */
export function bundleBanner(requireName = 'require'): string {
  return [
    `const ${requireName} = process.getBuiltinModule('node:module').createRequire(import.meta.url);`,
    `const __cloudfn_filename = import.meta.filename;`,
    `const __cloudfn_dirname = import.meta.dirname;`,
  ].join('\n');
}
