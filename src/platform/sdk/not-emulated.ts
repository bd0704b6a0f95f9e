/**
 * The guard around every object the stand-in hands out: reading a member it does not have
 * throws PLATFORM_SDK_NOT_EMULATED naming that member, instead of `undefined is not a function`.
 */
import { platformError } from '../errors.js';

/**
 * Members that tools read without meaning to call the SDK (promise checks, inspection,
 * module interop); reading them answers undefined as on a plain object.
 */
const PASS_THROUGH = new Set<string | symbol>([
  'then',
  'toJSON',
  'constructor',
  'asymmetricMatch',
  '$$typeof',
  'inspect',
  'nodeType',
  '__esModule',
]);

/**
 * Wraps `target` so that reading a member it lacks throws an error naming `<name>.<member>`.
 * @example const sdk = guarded('dySDK', { database }); sdk.storage // throws PLATFORM_SDK_NOT_EMULATED
 */
export function guarded<T extends object>(name: string, target: T): T {
  return new Proxy(target, {
    get(object, key, receiver) {
      if (typeof key === 'symbol' || key in object || PASS_THROUGH.has(key)) return Reflect.get(object, key, receiver);
      throw platformError('PLATFORM_SDK_NOT_EMULATED', `${name}.${key}`);
    },
  });
}
