/**
 * The client side of the trigger endpoint: asks a running `cloudfn dev` (or `cloudfn start
 * --trigger-endpoint`) to fire a scheduled function now, and reads its answer.
 */
import type { TriggerAnswer } from './protocol.js';
import { TRIGGER_PREFIX } from './trigger-route.js';

/**
 * Fires `name` on the server at `baseUrl`. Resolves with the firing's answer; rejects with the
 * server's error message (no such scheduled function, no endpoint) or the network's.
 * @example const answer = await triggerRemote('http://127.0.0.1:8000', 'cleanup')
 */
export async function triggerRemote(baseUrl: string, name: string): Promise<TriggerAnswer> {
  const url = new URL(`${TRIGGER_PREFIX}${name.split('/').map(encodeURIComponent).join('/')}`, baseUrl);
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST' });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(
      `nothing answered at ${url.origin} (${cause?.code ?? cause?.message ?? (error as Error).message}); start cloudfn dev, or cloudfn start --trigger-endpoint, or pass --url`,
    );
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (response.status === 200 && typeof json === 'object' && json !== null && 'status' in json)
    return json as TriggerAnswer;
  const error = (json as { error?: { code?: string; message?: string } } | undefined)?.error;
  const message = error?.message;
  // The runtime's own 404: the path went to routing, so no trigger endpoint is served there.
  if (response.status === 404 && (message === undefined || error?.code === 'CLOUDFN_NOT_FOUND'))
    throw new Error(
      `${url.origin} has no trigger endpoint (${response.status}); cloudfn start serves it only with --trigger-endpoint`,
    );
  throw new Error(message ?? `${url.href} answered ${response.status}: ${text.slice(0, 200)}`);
}
