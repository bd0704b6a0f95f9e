/**
 * The JSON body of every error response, `{"error":{"code","message","logid"}}` (plus `issues` for
 * invalid params): written by the
 * server (response.ts) and by the function service's adapter, so both answer the same bytes.
 */

import type { ParamsIssue } from '../contract/pointer.js';

/**
 * The error body's text; a refusal of params (`CLOUDFN_BAD_PARAMS`) adds `issues`, one per
 * problem, each with a JSON Pointer `path` into params.
 * @example errorBody('CLOUDFN_HTTP_ERROR', 'video v1 does not exist', logid)
 */
export function errorBody(code: string, message: string, logid: string, issues?: readonly ParamsIssue[]): string {
  return JSON.stringify(
    issues === undefined ? { error: { code, message, logid } } : { error: { code, message, logid, issues } },
  );
}
