/**
 * The module an unresolvable `@open-dy/node-server-sdk` import loads under `cloudfn dev`,
 * `cloudfn start` and `cloudfn/testing` (build/sdk-alias.ts sends it here): `dySDK` as a named
 * export, and a default export holding it, for `import sdk from …` and `require(…)`. Any other
 * member throws PLATFORM_SDK_NOT_EMULATED naming it.
 */
import { guarded } from './not-emulated.js';
import { createDySdk } from './sdk.js';

/** The stand-in's `dySDK`, one per process. */
export const dySDK = createDySdk();

/** `import sdk from '@open-dy/node-server-sdk'; sdk.dySDK`. */
const moduleObject = guarded('@open-dy/node-server-sdk', { dySDK });
export default moduleObject;

export { createDySdk, type DySdk, type SdkServiceContext } from './sdk.js';
export { readRequestContext, CONTEXT_HEADERS, type SdkRequestContext } from './context.js';
export { createDatabase, DEFAULT_LIMIT, MAX_LIMIT, type Database } from './database.js';
export { DocumentStore } from './store.js';
export { readSdkOptions, SDK_OPENAPI_URL_VAR, type SdkOptions } from './sdk-options.js';
export type { OpenApiRequest } from './open-api.js';
