/**
 * The JSON body of every error response, `{"error":{"code","message","logid"}}`: written by the
 * server (response.ts) and by the function service's adapter, so both answer the same bytes.
 */

/**
 * The error body's text.
 * @example errorBody('CLOUDFN_HTTP_ERROR', 'video v1 does not exist', logid)
 */
export function errorBody(code: string, message: string, logid: string): string {
  return JSON.stringify({ error: { code, message, logid } });
}
