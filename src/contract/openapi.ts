/**
 * The OpenAPI 3.1 document of a project's functions: one operation per function and method
 * (GET with its query parameters, POST with its body by content type), the result, and the one
 * error body with its `issues`. Schemas come from the functions' contracts (json-schema.ts); a
 * function without one is listed with what is known: any query, any body of the parsed types.
 */
import type { FunctionSpec } from '../../runtime/types.js';
import { type JsonSchema, JsonSchemaConverter } from './json-schema.js';

/** What the document says of the project. */
export interface OpenApiOptions {
  /** The project folder (where a converter is looked up). */
  root: string;
  /** `info.title`. @default 'cloudfn functions' */
  title?: string;
  /** `info.version`. @default '0.0.0' */
  version?: string;
}

/** An OpenAPI 3.1 document, as JSON. */
export type OpenApiDocument = Record<string, unknown> & { openapi: '3.1.0'; paths: Record<string, unknown> };

const ERROR_REF = { $ref: '#/components/schemas/CloudfnError' };

/** `{"error":{"code","message","logid","issues"?}}`: every error answer (docs/errors.md). */
const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'logid'],
      properties: {
        code: { type: 'string', examples: ['CLOUDFN_BAD_PARAMS'] },
        message: { type: 'string' },
        logid: { type: 'string' },
        issues: {
          type: 'array',
          description: 'With CLOUDFN_BAD_PARAMS: one entry per problem.',
          items: {
            type: 'object',
            required: ['path', 'message'],
            properties: {
              path: { type: 'string', description: 'A JSON Pointer (RFC 6901) into params; "" is the whole params.' },
              message: { type: 'string' },
            },
          },
        },
      },
    },
  },
};

/** A function's path: `index` is served at `/`. */
export function functionPath(name: string): string {
  return name === 'index' ? '/' : `/${name}`;
}

/** `videos/list` → `videos_list`. */
function operationName(name: string): string {
  return name.replace(/[^A-Za-z0-9]+/g, '_');
}

/** The query parameters of a GET: each property of an object schema, else one free-form object. */
function queryParameters(schema: JsonSchema | undefined): unknown[] {
  const properties = schema?.['properties'] as Record<string, JsonSchema> | undefined;
  if (schema === undefined || schema['type'] !== 'object' || properties === undefined)
    return [
      {
        name: 'params',
        in: 'query',
        style: 'form',
        explode: true,
        schema: schema ?? { type: 'object', additionalProperties: { type: 'string' } },
      },
    ];
  const required = new Set((schema['required'] as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: property,
  }));
}

function response200(result: JsonSchema | undefined): unknown {
  return {
    description: result === undefined ? 'What the handler returns (undeclared: no config.result)' : 'The result',
    content: { 'application/json': { schema: result ?? {} } },
  };
}

const ERROR_RESPONSES = {
  '400': {
    description: 'Bad params (CLOUDFN_BAD_PARAMS, with issues) or an unparsable body',
    content: { 'application/json': { schema: ERROR_REF } },
  },
  default: { description: 'Any other error', content: { 'application/json': { schema: ERROR_REF } } },
};

/**
 * Builds the document for `functions`.
 * @example const doc = await openApiDocument(specs, { root, title: 'my-app' })
 */
export async function openApiDocument(
  functions: readonly FunctionSpec[],
  options: OpenApiOptions,
): Promise<OpenApiDocument> {
  const converter = new JsonSchemaConverter(options.root);
  const paths: Record<string, unknown> = {};
  for (const fn of [...functions].sort((a, b) => a.name.localeCompare(b.name))) {
    const params = fn.config?.params === undefined ? undefined : await converter.convert(fn.config.params, 'input');
    const result = fn.config?.result === undefined ? undefined : await converter.convert(fn.config.result, 'output');
    const declared = params !== undefined;
    const summary = `${fn.name}${declared ? '' : ' (params undeclared)'}`;
    const extra = {
      'x-cloudfn-function': fn.name,
      ...(fn.file === undefined ? {} : { 'x-cloudfn-file': fn.file }),
      ...(fn.config?.timeout === undefined ? {} : { 'x-cloudfn-timeout': fn.config.timeout }),
    };
    const responses = { '200': response200(result), ...ERROR_RESPONSES };
    const body = params ?? {};
    paths[functionPath(fn.name)] = {
      get: {
        operationId: `get_${operationName(fn.name)}`,
        summary,
        tags: [fn.name.includes('/') ? fn.name.slice(0, fn.name.lastIndexOf('/')) : 'functions'],
        parameters: queryParameters(params),
        responses,
        ...extra,
      },
      post: {
        operationId: `post_${operationName(fn.name)}`,
        summary,
        tags: [fn.name.includes('/') ? fn.name.slice(0, fn.name.lastIndexOf('/')) : 'functions'],
        requestBody: {
          required: false,
          content: declared
            ? {
                'application/json': { schema: body },
                'application/x-www-form-urlencoded': { schema: body },
                'multipart/form-data': { schema: body },
              }
            : {
                'application/json': { schema: {} },
                'application/x-www-form-urlencoded': { schema: { type: 'object' } },
                'multipart/form-data': { schema: { type: 'object' } },
                'text/plain': { schema: { type: 'string' } },
                'application/octet-stream': {
                  schema: { type: 'string', contentMediaType: 'application/octet-stream' },
                },
              },
        },
        responses,
        ...extra,
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: options.title ?? 'cloudfn functions',
      version: options.version ?? '0.0.0',
      description: 'Generated by cloudfn openapi from the functions and their config.params / config.result.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    components: { schemas: { CloudfnError: ERROR_SCHEMA } },
  };
}
