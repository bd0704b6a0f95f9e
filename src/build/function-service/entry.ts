/**
 * The source of one file of the function service: require the function's module and the
 * adapter, and export the wrapped handler as `module.exports` (and `.default`, for loaders
 * that look there). CommonJS `require`, so that esbuild writes a CommonJS file whose
 * `module.exports` is the function itself. The platform-set headers are trusted unless the
 * project's config says `trustGatewayHeaders: false` (every call comes through the platform).
 */
import { ownFile } from '../../own-package.js';

/**
 * Writes the entry of the file serving function `name` from `file` (an absolute path).
 * @example functionServiceEntry({ name: 'videos/list', file: '/app/functions/videos/list.ts' })
 */
export function functionServiceEntry(
  fn: { name: string; file: string },
  options: { trustGatewayHeaders?: boolean } = {},
): string {
  const handlerOptions = options.trustGatewayHeaders === false ? '{ trustGatewayHeaders: false }' : '{}';
  return [
    // First, so that the function's own modules (and the runtime's, taken through the SDK
    // stand-in) load with the APIs Node 14 lacks already defined.
    `require(${JSON.stringify(ownFile('runtime/function-service/node14-apis'))});`,
    `const fn = require(${JSON.stringify(fn.file)});`,
    `const { functionServiceHandler } = require(${JSON.stringify(ownFile('runtime/function-service/adapter'))});`,
    // Its config travels with it: a params schema is validated as under cloudfn start.
    `const handler = functionServiceHandler(fn.default ?? fn, ${JSON.stringify(fn.name)}, ${handlerOptions}, fn.config ?? (fn.default ?? fn).config);`,
    `module.exports = handler;`,
    `module.exports.default = handler;`,
    '',
  ].join('\n');
}
