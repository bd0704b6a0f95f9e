/**
 * The server-SDK check of `cloudfn build`, made before the type check (which can take many
 * seconds): when the container bundles are to carry the real `@open-dy/node-server-sdk`
 * (`sdk: platform`) and it is not installed, a function file that names it stops the build at
 * once with `CLOUDFN_SDK_NOT_INSTALLED`. It reads the function files' text only; an import in a
 * helper outside the functions folder is still caught by the bundling (bundle.ts).
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { resolveOptions } from '../../runtime/options.js';
import { discoverFunctions } from '../../runtime/serve/discover.js';
import { loadProjectConfig } from './project-config.js';
import { installedFrom, SERVER_SDK } from './sdk-alias.js';
import { createModuleError } from '../../runtime/serve/module-errors.js';

/** A static import, re-export, `import()` or `require()` of the SDK. */
const SDK_IMPORT = new RegExp(`(from|import|require)\\s*\\(?\\s*['"]${SERVER_SDK.replace(/[/.-]/g, '\\$&')}['"]`);

/**
 * Throws `CLOUDFN_SDK_NOT_INSTALLED` when the server bundles would need an SDK that is not there.
 * @example await precheckSdk(root, { sdk: values.sdk, functionsDir: values['functions-dir'] })
 */
export async function precheckSdk(root: string, flags: { sdk?: string; functionsDir?: string }): Promise<void> {
  const config = await loadProjectConfig(root);
  const { sdk, functionsDir, functionsIgnore } = resolveOptions({ flags, env: process.env, config });
  if (sdk !== 'platform' || installedFrom(root)) return;
  const importers = discoverFunctions(root, functionsDir, { ignore: functionsIgnore })
    .filter((fn) => SDK_IMPORT.test(readFileSync(fn.file, 'utf8')))
    .map((fn) => relative(root, fn.file));
  if (importers.length > 0) throw createModuleError('CLOUDFN_SDK_NOT_INSTALLED', importers.sort().join(', '));
}
