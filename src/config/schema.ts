/**
 * `configSchema`: the JSON Schema of `cloudfn.config.json`, derived from the option table of
 * runtime/options.ts (plus routes, functions and limits), so an option added there reaches
 * editors with no second list to keep. docs/cloudfn.config.schema.json is its output, checked
 * by a test.
 */
import { configOptionTable, LIMIT_KEYS, defaultLimits, optionEnvVars, type JsonSchema } from '../../runtime/options.js';
import { CONFIG_KEYS } from '../../runtime/serve/load.js';
import { DEV_USER_KEYS } from '../platform/gateway/dev-user.js';

/** Where the schema ships, relative to the package root. */
export const CONFIG_SCHEMA_PATH = 'docs/cloudfn.config.schema.json';

/** What a project's cloudfn.config.json puts in `$schema` to point at the installed copy. */
export const CONFIG_SCHEMA_REF = `./node_modules/cloudfn/${CONFIG_SCHEMA_PATH}`;

/** `PORT · docs/configuration.md` style text: where else the option is set, and where it is explained. */
function describe(name: string, what: string): string {
  const env = optionEnvVars[name];
  return `${what}${env === undefined ? '' : ` Also set by the environment variable ${env}.`} See docs/configuration.md.`;
}

/** The limits, each a whole number; in `limits` and in a function's options. */
function limitProperties(): Record<string, JsonSchema> {
  return Object.fromEntries(
    LIMIT_KEYS.map((key) => [
      key,
      { type: 'integer', minimum: 0, default: defaultLimits[key], description: describe(key, `The ${key} limit.`) },
    ]),
  );
}

/** A function's own options (`export const config`, or `functions` in the config file). */
function functionConfigSchema(): JsonSchema {
  const limits = limitProperties();
  const properties: Record<string, JsonSchema> = {};
  for (const key of CONFIG_KEYS) {
    if (key === 'timeout') properties[key] = { type: 'integer', minimum: 1, description: 'Milliseconds before 504.' };
    else if (key === 'schedule')
      properties[key] = {
        description:
          'A cron expression, e.g. "0 */5 * * * *", or { cron, params }: each firing POSTs exactly params as its JSON body (docs/observability.md#timer-triggers).',
        oneOf: [
          { type: 'string', minLength: 1 },
          {
            type: 'object',
            additionalProperties: false,
            required: ['cron'],
            properties: { cron: { type: 'string', minLength: 1 }, params: {} },
          },
        ],
      };
    else if (key === 'client')
      properties[key] = {
        anyOf: [{ type: 'boolean' }, { const: 'inner-call' }],
        description:
          "Whether cloudfn client offers the function to the mini-program: false leaves it out, true keeps a timer or callback in, 'inner-call' says only the app's other services call it (docs/contracts.md).",
      };
    else properties[key] = limits[key] ?? {};
  }
  return { type: 'object', additionalProperties: false, properties };
}

/**
 * The JSON Schema (draft 2020-12) of `cloudfn.config.json`: unknown keys are errors, as they
 * are when cloudfn reads the file.
 * @example writeFileSync('schema.json', JSON.stringify(configSchema(), null, 2))
 */
export function configSchema(): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    $schema: { type: 'string', description: 'The JSON Schema of this file, for editors; ignored by cloudfn.' },
    routes: {
      type: 'object',
      description: 'Custom routes, path-to-regexp pattern → function name: { "/videos/:vid": "videos/get" }.',
      additionalProperties: { type: 'string', minLength: 1 },
    },
    functions: {
      type: 'object',
      description: 'Per-function options by function name, as an alternative to export const config.',
      additionalProperties: functionConfigSchema(),
    },
    limits: {
      type: 'object',
      description: 'Body and multipart limits of every function.',
      additionalProperties: false,
      properties: limitProperties(),
    },
    devUser: {
      type: 'object',
      description:
        'The caller cloudfn dev sends as the platform gateway would, as X-TT-* headers (docs/platform-projects.md).',
      additionalProperties: false,
      properties: Object.fromEntries(DEV_USER_KEYS.map((key) => [key, { type: 'string', minLength: 1 }])),
    },
    gateway: {
      type: 'boolean',
      description:
        "cloudfn start runs the platform's WebSocket gateway: clients connect at /__dycloud__/ws/connect/ and the functions' push API calls are answered by it (as CLOUDFN_GATEWAY=1; docs/gateway.md#production-mode). cloudfn dev always runs it. Default: false.",
    },
    liveData: {
      type: 'object',
      description:
        "cloudfn dev's live-room simulator: the path the room's messages are POSTed to, the anchor (x-anchor-openid) and the data secret that signs each push (docs/live-room.md).",
      additionalProperties: false,
      required: ['path'],
      properties: {
        path: { type: 'string', pattern: '^/', description: 'The live-data path, e.g. "/live_data_callback".' },
        anchorOpenid: {
          type: 'string',
          minLength: 1,
          description: "The room's anchor. Default: the dev user's anchorOpenid, else its openid.",
        },
        secret: {
          type: 'string',
          minLength: 1,
          description: 'The data secret that signs x-signature. Default: cloudfn-dev-live-secret.',
        },
      },
    },
    serviceId: {
      type: 'string',
      pattern: '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$',
      description:
        "This service's id, as the platform's SERVICE_ID and in inner-call hosts ({from}-{to}.inner-call.dyc.ivolces.com). Default: the folder's name (docs/services.md).",
    },
    innerCall: {
      type: 'array',
      items: { type: 'string', pattern: '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$' },
      description:
        'The service ids this service may call at http://{SERVICE_ID}-{id}.inner-call.dyc.ivolces.com, as the platform enables targets on the source service (docs/services.md).',
    },
    gatewayLimits: {
      type: 'object',
      additionalProperties: false,
      description:
        "The limits cloudfn dev's gateway applies to createCloud calls addressed to this service, answered in the platform's envelope: maxBodySize bytes (14021), qps calls a second (14010, or 14030 with debug). Off by default (docs/client.md#the-gateways-failures).",
      properties: {
        maxBodySize: { type: 'integer', minimum: 1 },
        qps: { type: 'integer', minimum: 1 },
        debug: { type: 'boolean' },
      },
    },
    components: {
      type: 'object',
      additionalProperties: false,
      description:
        "The components cloudfn dev injects as REDIS_*, MYSQL_*, MONGO_*: true starts a local server, a URL points at a running one (docs/services.md#components); tos: true answers the platform's TOS hosts from a local store and injects TOS_* (docs/storage.md).",
      properties: {
        redis: { anyOf: [{ type: 'boolean' }, { type: 'string', pattern: '^(redis://|[^/]+:\\d+$)' }] },
        mysql: { anyOf: [{ type: 'boolean' }, { type: 'string', pattern: '^(mysql://|[^/]+:\\d+$)' }] },
        mongo: { type: 'string', pattern: '^mongodb://' },
        tos: { type: 'boolean' },
      },
    },
    checkRequests: {
      type: 'object',
      description:
        'The request cloudfn build --target function-service --check sends a function, by function name, for one the platform calls with a body (a live-data callback) or through its timer (trigger "timer"); others get a GET with no query, timer functions their firing (docs/deploy.md).',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: {
          method: { enum: ['GET', 'POST'] },
          query: { type: 'string' },
          headers: { type: 'object', additionalProperties: { type: 'string' } },
          body: {},
          trigger: { enum: ['timer'] },
        },
      },
    },
  };
  for (const row of configOptionTable()) {
    properties[row.name] = {
      ...row.schema,
      ...(row.default === undefined ? {} : { default: row.default }),
      description: describe(row.name, `The ${row.name} option.`),
    };
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'cloudfn.config.json',
    description: 'Options of a cloudfn project. See docs/configuration.md of cloudfn.',
    type: 'object',
    additionalProperties: false,
    properties,
  };
}

/** The schema as the shipped file holds it: two-space JSON and a final newline. */
export function configSchemaText(): string {
  return `${JSON.stringify(configSchema(), null, 2)}\n`;
}
