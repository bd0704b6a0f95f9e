/**
 * Bundling the dev console page's TypeScript for the browser. The dev server does it once, on
 * the fly at start, so neither `npm run build` nor the package needs a separate page build.
 */
import { build } from 'esbuild';
import { formatMessage } from './compile.js';

/**
 * Bundles a browser entry into one script (an IIFE with an inline source map).
 * @example const js = await bundleBrowserScript('/pkg/src/dev/console/page/main.ts')
 */
export async function bundleBrowserScript(entry: string): Promise<string> {
  try {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: ['chrome110', 'firefox110', 'safari16'],
      sourcemap: 'inline',
      logLevel: 'silent',
    });
    return result.outputFiles[0]?.text ?? '';
  } catch (error) {
    const errors = (error as { errors?: Parameters<typeof formatMessage>[0][] }).errors ?? [];
    throw new Error(
      `the console page failed to bundle:\n${errors.map((m) => formatMessage(m, process.cwd())).join('\n') || String(error)}`,
    );
  }
}
