/**
 * cloudfn's optional peer dependencies in a bundle: prom-client, which the metrics chunk
 * imports, is bundled when the project installed it and left external when not, so a project
 * without it still builds; turning metrics on then fails at start with
 * CLOUDFN_METRICS_UNAVAILABLE, the one message saying to install it (runtime/serve/import-metrics.ts).
 */
import { createRequire } from 'node:module';
import type { Plugin } from 'esbuild';

/** The optional peers the bundled runtime imports statically (ioredis is imported by a hidden name). */
const OPTIONAL_PEERS = /^prom-client$/;

/**
 * The esbuild plugin.
 * @example build({ ..., plugins: [optionalPeers()] })
 */
export function optionalPeers(): Plugin {
  return {
    name: 'cloudfn-optional-peers',
    setup(build) {
      build.onResolve({ filter: OPTIONAL_PEERS }, (args) => {
        try {
          createRequire(args.importer).resolve(args.path);
          return undefined;
        } catch {
          return { path: args.path, external: true };
        }
      });
    },
  };
}
