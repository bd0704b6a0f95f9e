/**
 * What `cloudfn init --layout platform` adds to show the environment the platform injects into
 * every service (docs/services.md): `_platform-env.ts`, a module that reads `CLOUD_ENV` and
 * `SERVICE_ID` once at start and builds the URL of an inner call (its `_` keeps it from being a
 * function at the root), its test, and a README section on `serviceId`, `innerCall` and
 * `components` in cloudfn.config.json. The texts are written as the project's own files.
 */

/** The module's file name at the project root. */
export const PLATFORM_ENV_FILE = '_platform-env.ts';

/** Its test, beside the template's. */
export const PLATFORM_ENV_TEST_FILE = 'test/platform-env.test.ts';

/**
 * How the project's files import the module. Written through a constant so that the import
 * lines inside these texts are not read as imports of this file (test/structure).
 */
const FROM_ROOT = './_platform-env.js';
const FROM_TEST = '../_platform-env.js';

/** `_platform-env.ts`. */
export const PLATFORM_ENV_TEXT = `// The environment the platform injects into every service, read once when the code loads (the
// platform asks services to check it at start). Import it from any function:
//
//   import { isProd, serviceId, innerCallUrl } from '${FROM_ROOT}';
//
// The leading _ keeps this file from being served as a function. cloudfn dev sets the same
// variables: CLOUD_ENV=DEV (never PROD) and SERVICE_ID from "serviceId" in cloudfn.config.json
// (else the folder's name). See the README, "The platform's environment".

/** DEV (the platform's test environment, and cloudfn dev) or PROD (the released version). */
export type CloudEnv = 'DEV' | 'PROD';

/**
 * Reads CLOUD_ENV: PROD only when it says PROD. Anything else (unset under a plain
 * cloudfn start or in unit tests) counts as DEV, so test-only code never runs by accident in
 * production, and production-only code (real payments, real pushes) never runs by accident in a test.
 */
export function readCloudEnv(value: string | undefined): CloudEnv {
  return value === 'PROD' ? 'PROD' : 'DEV';
}

/** This process's environment, as the platform injected it. */
export const cloudEnv: CloudEnv = readCloudEnv(process.env['CLOUD_ENV']);
export const isProd = process.env['CLOUD_ENV'] === 'PROD';

/** This service's id, as the platform shows it; '' where nothing set it. */
export const serviceId: string = process.env['SERVICE_ID'] ?? '';

/**
 * The URL at which this service calls \`path\` of another service of the app, over the platform's
 * intranet (plain HTTP only). The platform, and cloudfn dev, let the call through only when
 * \`target\` is enabled for this service: "innerCall": ["<target>"] in its cloudfn.config.json.
 *
 *   const res = await fetch(innerCallUrl('profile', '/get_profile?openid=' + openid));
 */
export function innerCallUrl(target: string, path: string, from: string = serviceId): string {
  if (from === '') throw new Error('SERVICE_ID is not set: run under cloudfn dev or on the platform, or pass the caller id');
  return \`http://\${from}-\${target}.inner-call.dyc.ivolces.com\${path.startsWith('/') ? path : \`/\${path}\`}\`;
}
`;

/** `test/platform-env.test.ts`. */
export const PLATFORM_ENV_TEST_TEXT = `import { describe, expect, it } from 'vitest';
import { innerCallUrl, readCloudEnv } from '${FROM_TEST}';

describe('the platform environment', () => {
  it('is PROD only when CLOUD_ENV says so', () => {
    expect(readCloudEnv('PROD')).toBe('PROD');
    expect(readCloudEnv('DEV')).toBe('DEV');
    expect(readCloudEnv(undefined)).toBe('DEV');
  });

  it('calls another service at its inner-call host, named after both services', () => {
    expect(innerCallUrl('profile', '/get_profile?openid=o1', 'game')).toBe(
      'http://game-profile.inner-call.dyc.ivolces.com/get_profile?openid=o1',
    );
    expect(innerCallUrl('profile', 'ping', 'game')).toBe('http://game-profile.inner-call.dyc.ivolces.com/ping');
  });

  it('needs the caller id', () => {
    expect(() => innerCallUrl('profile', '/ping', '')).toThrow('SERVICE_ID is not set');
  });
});
`;

/** The README section on the environment, the service id, inner calls and components. */
export const PLATFORM_ENV_README_TEXT = `
## The platform's environment: \`CLOUD_ENV\`, \`SERVICE_ID\`, \`innerCall\`, \`components\`

The platform injects into every service \`CLOUD_ENV\` (\`DEV\` in its test environment, \`PROD\` in
the released version) and \`SERVICE_ID\` (the service's id). \`_platform-env.ts\` reads them once at
start; branch on them there, not per request:

\`\`\`ts
import { isProd, serviceId } from '${FROM_ROOT}';

const payments = isProd ? realPayments() : sandboxPayments();   // process.env.CLOUD_ENV === 'PROD'
\`\`\`

\`cloudfn dev\` sets \`CLOUD_ENV=DEV\` (a \`.env\` asking for \`PROD\` is warned about and overruled)
and \`SERVICE_ID\`; \`cloudfn start\` leaves both to the platform. What \`cloudfn.config.json\` says
of this project as a service of the app:

\`\`\`json
{
  "serviceId": "game",
  "innerCall": ["profile"],
  "components": { "redis": true, "mysql": true }
}
\`\`\`

- **\`serviceId\`**: this service's \`SERVICE_ID\` under \`cloudfn dev\`, as the platform shows it
  (lower-case letters, digits and inner hyphens); made from the folder's name when left out.
- **\`innerCall\`**: the services this one may call, as the platform enables them on the calling
  service (访问控制-服务间调用). A call goes to
  \`http://<SERVICE_ID>-<target>.inner-call.dyc.ivolces.com/<path>\` (\`innerCallUrl\` of
  \`_platform-env.ts\`); a target not listed is refused. Run the services together with
  \`cloudfn dev game profile\` (one folder each; \`game\` on port 8000, \`profile\` on 8001; each
  console's *Services* panel shows them all).
- **\`components\`**: \`true\` starts a local Redis or MySQL server for \`cloudfn dev\`, a URL points
  at one you run (\`"mongo": "mongodb://user:password@host:27017"\`); your code reads the
  platform's variables (\`REDIS_ADDRESS\`, \`REDIS_USERNAME\`, \`REDIS_PASSWORD\`, \`MYSQL_*\`,
  \`MONGO_*\`). On the platform, enable the components in its console instead.

See cloudfn's docs/services.md.
`;
