/**
 * `cloudfn init --layout platform`: a new project in the platform's own layout, as its
 * templates have it: each function file at the project root (`hello.ts` served at `/hello`),
 * with `"functionsDir": "."` in cloudfn.config.json. The template's functions/ is moved up, and
 * the paths that named it (the tests' `invoke('functions/...')` and imports, the README's table,
 * tsconfig's include) are rewritten. It also writes `cloudfn-env.d.ts`, which types the
 * platform's server SDK (`@open-dy/node-server-sdk`, not on the public registry) with cloudfn's
 * stand-in, so `tsc`, the editor and `cloudfn dev` check SDK imports alike, and sets `sdk`
 * explicitly (the stand-in, so the image builds as scaffolded), with a README section on when to
 * switch. And `_platform-env.ts` with its test and a README section (platform-env-files.ts):
 * how to read the `CLOUD_ENV` and `SERVICE_ID` the platform injects, and the config's
 * `serviceId`, `innerCall` and `components`.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createError } from '../../runtime/errors.js';
import {
  PLATFORM_ENV_FILE,
  PLATFORM_ENV_README_TEXT,
  PLATFORM_ENV_TEST_FILE,
  PLATFORM_ENV_TEST_TEXT,
  PLATFORM_ENV_TEXT,
} from './platform-env-files.js';

/** The declaration file that types the server SDK in a platform project. */
export const SDK_ENV_FILE = 'cloudfn-env.d.ts';

/**
 * Its text: an ambient module for `@open-dy/node-server-sdk` re-exporting the stand-in's types
 * (`cloudfn/server-sdk`). A script, not a module (no top-level import), so that it declares the
 * module rather than augmenting one; any tsconfig whose include covers the root's `*.ts` reads it.
 */
export const SDK_ENV_TEXT = `// The types of @open-dy/node-server-sdk, the platform's server SDK, which is not on the public
// npm registry: those of cloudfn's stand-in (docs/platform-projects.md of cloudfn, "Types").
// Delete this file once the real package is installed from the platform's registry.
declare module '@open-dy/node-server-sdk' {
  export * from 'cloudfn/server-sdk';
  export { default } from 'cloudfn/server-sdk';
}
`;

/** The README section that explains the `sdk` choice, added when the template's README has none. */
export const SDK_README_TEXT = `
## The server SDK: \`"sdk": "stand-in"\`

\`cloudfn.config.json\` says which \`@open-dy/node-server-sdk\` (the platform's server SDK, not on the
public npm registry) \`npm run build\` puts in the image. \`"stand-in"\`, as written, is cloudfn's
local stand-in: the project installs, tests and builds anywhere; its \`openApiInvoke\` sends the
live-data task calls (\`webcast.bytedance.com\`) and the WebSocket pushes (\`ws-push.dyc.ivolces.com\`)
to the stand-ins of the same process (\`cloudfn dev\`, or \`openGateway\` and \`startLiveRooms\` of
\`cloudfn/testing\`; else every call to \`CLOUDFN_SDK_OPENAPI_URL\`), and refuses a call with one
line naming what to start when none runs. For an image built where the real package installs (the platform's own build),
install it (\`npm install @open-dy/node-server-sdk\`), delete \`cloudfn-env.d.ts\` and write
\`"sdk": "platform"\`.
`;

/** The layouts `cloudfn init` can write. */
export const LAYOUTS = ['functions', 'platform'] as const;
export type Layout = (typeof LAYOUTS)[number];

function textFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.[cm]?[jt]s$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

function rewrite(file: string, edit: (text: string) => string): void {
  if (existsSync(file)) writeFileSync(file, edit(readFileSync(file, 'utf8')));
}

/**
 * Moves `<dir>/functions/*` to `<dir>` and points the project at its root.
 * @example toPlatformLayout('/home/ada/my-app')
 */
export function toPlatformLayout(dir: string): void {
  const functions = join(dir, 'functions');
  const entries = readdirSync(functions);
  for (const entry of entries) {
    // A template whose function shares a name with a project file cannot be moved up as is.
    if (existsSync(join(dir, entry)))
      throw createError(
        'CLOUDFN_BAD_CONFIG',
        join('functions', entry),
        `cannot move to the project root, where ${entry} already exists; use --layout functions for this template`,
      );
  }
  for (const entry of entries) renameSync(join(functions, entry), join(dir, entry));
  rmdirSync(functions);
  for (const file of textFiles(join(dir, 'test')))
    rewrite(file, (text) => text.replaceAll('../functions/', '../').replaceAll("'functions/", "'"));
  rewrite(join(dir, 'README.md'), (text) =>
    text
      .replaceAll('`functions/`', 'the project root (`"functionsDir": "."` in cloudfn.config.json)')
      .replaceAll('`functions/', '`')
      .replaceAll("'functions/", "'"),
  );
  rewrite(join(dir, '.env.example'), (text) => text.replaceAll('functions/', ''));
  rewrite(join(dir, 'README.md'), (text) => (text.includes('"sdk"') ? text : text + SDK_README_TEXT));
  rewrite(join(dir, 'tsconfig.json'), (text) => text.replace('"functions"', '"*.ts", "*/**/*.ts"'));
  if (!existsSync(join(dir, SDK_ENV_FILE))) writeFileSync(join(dir, SDK_ENV_FILE), SDK_ENV_TEXT);
  for (const [file, text] of [
    [PLATFORM_ENV_FILE, PLATFORM_ENV_TEXT],
    [PLATFORM_ENV_TEST_FILE, PLATFORM_ENV_TEST_TEXT],
  ] as const)
    if (!existsSync(join(dir, file))) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    }
  rewrite(join(dir, 'README.md'), (text) => (text.includes('"innerCall"') ? text : text + PLATFORM_ENV_README_TEXT));
  const configFile = join(dir, 'cloudfn.config.json');
  const config = existsSync(configFile) ? (JSON.parse(readFileSync(configFile, 'utf8')) as object) : {};
  writeFileSync(configFile, JSON.stringify({ functionsDir: '.', sdk: 'stand-in', ...config }, null, 2) + '\n');
}
