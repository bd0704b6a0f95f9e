/**
 * `cloudfn/server-sdk`: cloudfn's stand-in for `@open-dy/node-server-sdk` as a public entry,
 * with the SDK's own shape (`dySDK`, and a default export holding it), so that a project can
 * check its SDK imports against these types without the real package: the declaration that
 * `cloudfn init --layout platform` writes (`cloudfn-env.d.ts`) points the module name here
 * (docs/platform-projects.md#types). The same `dySDK` as the one the dev server loads.
 */
export { default, dySDK } from './index.js';
export type { DySdk, SdkServiceContext } from './sdk.js';
export type { SdkRequestContext } from './context.js';
export type { Database } from './database.js';
export type { OpenApiRequest } from './open-api.js';
