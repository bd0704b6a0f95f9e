/**
 * cloudfn's optional peer dependencies in a bundle: prom-client, which the metrics chunk
 * imports, and mingo, which the server SDK's stand-in imports on its first database call, are
 * bundled when the project installed them and left external when not, so a project without
 * them still builds; turning metrics on then fails at start with CLOUDFN_METRICS_UNAVAILABLE
 * (runtime/serve/import-metrics.ts), and the stand-in's database() with PLATFORM_SDK_NO_MINGO
 * (src/platform/sdk/mingo.ts), the one message saying what to install.
 */
import { createRequire } from 'node:module';
import type { Plugin } from 'esbuild';

/** The optional peers the bundled runtime imports statically (ioredis is imported by a hidden name). */
const OPTIONAL_PEERS = /^(prom-client|mingo)$/;

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
