/** What cloudfn's clients use where Node lacks fetch, Headers and AbortController (Node 14). */
export { createAbortController } from './abort.js';
export { createHeaders, FallbackHeaders } from './headers.js';
export { availableFetch, nodeFetch } from './node-fetch.js';
