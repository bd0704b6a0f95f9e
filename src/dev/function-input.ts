/**
 * What a function reads, as far as the dev server can tell without running it: the console
 * page pre-selects POST (and a body type) from it for a function it has not sent to yet, and
 * shows its Connections panel only when some function answers the WebSocket gateway.
 */
import { readFileSync } from 'node:fs';
import type { FunctionConfig } from '../../runtime/types.js';
import type { FunctionInput } from './console/protocol.js';

/** Limits that only matter for a multipart body. */
const MULTIPART_LIMITS = [
  'maxFileSize',
  'maxFiles',
  'maxFields',
  'maxParts',
  'maxFieldSize',
  'maxPartHeaderPairs',
] as const;

/**
 * A function reads multipart when its last name segment starts with `upload` or its config (its
 * own `export const config`, or its entry under `functions` in cloudfn.config) sets a multipart
 * limit; a body when its config sets `maxBodySize`; else a query. `maxParams` says nothing: it
 * bounds query strings too.
 * @example functionInput('videos/upload', {}) // 'multipart'
 * @example functionInput('hello', { maxBodySize: 1024 }) // 'body'
 */
export function functionInput(name: string, config: FunctionConfig | undefined): FunctionInput {
  const last = name.slice(name.lastIndexOf('/') + 1).toLowerCase();
  if (last.startsWith('upload') || MULTIPART_LIMITS.some((key) => config?.[key] !== undefined)) return 'multipart';
  return config?.maxBodySize === undefined ? 'query' : 'body';
}

/**
 * A function answers the WebSocket gateway when its source reads the gateway's event header
 * (`x-tt-event-type`: connect, uplink or disconnect, docs/gateway.md) or its name says
 * `websocket` (the platform's examples name it `websocket_callback`).
 * @example answersGateway('game', "const event = service.headers['x-tt-event-type'];") // true
 */
export function answersGateway(name: string, source: string): boolean {
  return /websocket/i.test(name) || /x-tt-event-type/i.test(source);
}

/**
 * `answersGateway` of the function's source file, read now; a file that cannot be read (being
 * saved, or gone) is judged by its name alone.
 */
export function fileAnswersGateway(name: string, file: string): boolean {
  let source = '';
  try {
    source = readFileSync(file, 'utf8');
  } catch {}
  return answersGateway(name, source);
}

/** Declared in the console's protocol, which the page imports too. */
export type { FunctionInput };
