/**
 * The source of a bundle's entry module: import each function's module, check that a Redis
 * setting can be served, then start the runtime with them and the config baked in. esbuild reads it from stdin.
 */
import { ownFile } from '../own-package.js';

/** A function to put in a bundle. */
export interface EntryFunction {
  name: string;
  /** Absolute path of the source file. */
  file: string;
  /** Relative path, for messages. */
  where: string;
}

/**
 * Writes the entry of a bundle serving `functions` (`single`: one function at every path).
 * @example entrySource([{ name: 'hello', file: '/app/functions/hello.ts', where: 'functions/hello.ts' }], {}, true)
 */
export function entrySource(functions: EntryFunction[], config: Record<string, unknown>, single: boolean): string {
  const imports = functions.map((fn, i) => `import * as fn${i} from ${JSON.stringify(fn.file)};`);
  const list = functions.map(
    (fn, i) => `      { name: ${JSON.stringify(fn.name)}, where: ${JSON.stringify(fn.where)}, module: fn${i} },`,
  );
  return [
    ...imports,
    `import { startBundle } from ${JSON.stringify(ownFile('runtime/serve/bundle-entry'))};`,
    // A Redis setting whose client cannot load refuses to start (src/fleet/preflight.ts). The
    // check is imported only with a setting: a single instance's start-up does not read it.
    `import { redisSettingGiven } from ${JSON.stringify(ownFile('src/fleet/setting-given'))};`,
    // No top-level await: the chunks a bundle loads on first use import what they share with
    // the start-up code from the entry itself (fold-chunks.ts), and a chunk imported while the
    // entry still awaited would wait for it forever. A failure is still an uncaught error.
    `const start = async () => {`,
    `  if (redisSettingGiven(undefined)) {`,
    `    const { refuseWithoutRedisClient } = await import(${JSON.stringify(ownFile('src/fleet/preflight'))});`,
    `    await refuseWithoutRedisClient();`,
    `  }`,
    `  await startBundle({`,
    `    functions: [\n${list.join('\n')}\n    ],`,
    `    config: ${JSON.stringify(config)},`,
    `    single: ${single},`,
    `  });`,
    `};`,
    `start();`,
    '',
  ].join('\n');
}
