/**
 * The platform's intranet hosts (services, the push API, the live-room OpenAPI) and the hook
 * that answers them locally for unchanged code.
 */
export { classifyHost, INNER_CALL_SUFFIXES, maybeIntranet, WEBCAST_INTRANET_HOST } from './hosts.js';
export type { IntranetHost } from './hosts.js';
export { interceptIntranet, IntranetRefusedError } from './intercept.js';
export type { IntranetRoute, IntranetRouter } from './intercept.js';
