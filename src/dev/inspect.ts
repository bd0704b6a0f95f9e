/**
 * `--inspect` for the dev server: opens Node's inspector in the running process, so there is
 * no second process to re-exec and the functions compiled afterwards (with inline source maps)
 * show their TypeScript in the debugger. Node prints "Debugger listening on ws://…" itself.
 */
import inspector from 'node:inspector';
import { createDevError } from './errors.js';

/**
 * Parses `--inspect`'s value the way Node does: empty for 127.0.0.1:9229, `port`, or `host:port`.
 * @example parseInspectTarget('0.0.0.0:9230') // { host: '0.0.0.0', port: 9230 }
 */
export function parseInspectTarget(spec: string): { host: string; port: number } {
  if (spec === '' || spec === 'true') return { host: '127.0.0.1', port: 9229 };
  const colon = spec.lastIndexOf(':');
  const host = colon === -1 ? '127.0.0.1' : spec.slice(0, colon).replace(/^\[|\]$/g, '');
  const portText = colon === -1 ? spec : spec.slice(colon + 1);
  const port = /^\d+$/.test(portText) ? Number(portText) : Number.NaN;
  if (!Number.isInteger(port) || port > 65535 || host === '')
    throw createDevError(
      'CLOUDFN_DEV_INSPECT',
      spec,
      'give a port or host:port, e.g. --inspect=9229 or --inspect=127.0.0.1:9229',
    );
  return { host, port };
}

/**
 * Opens the inspector (once per process) and returns its WebSocket URL.
 * @example openInspector('9229') // 'ws://127.0.0.1:9229/6c1e…'
 */
export function openInspector(spec: string): string {
  const open = inspector.url();
  if (open !== undefined) return open;
  const { host, port } = parseInspectTarget(spec);
  inspector.open(port, host, false);
  const url = inspector.url();
  // Node reports a busy port on stderr and leaves the inspector closed rather than throwing.
  if (url === undefined)
    throw createDevError(
      'CLOUDFN_DEV_INSPECT',
      spec,
      `nothing listens on ${host}:${port}, which is probably in use; pick another port, e.g. --inspect=${port === 9229 ? 9230 : 9229}`,
    );
  return url;
}
