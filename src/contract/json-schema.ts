/**
 * A function's schemas as JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1), for the
 * OpenAPI document and the console's forms. Standard JSON Schema first (`~standard.jsonSchema`,
 * which zod 4 and arktype 2 implement), then the library's own converter where it has one
 * outside the schema (valibot's `@valibot/to-json-schema`, from the project's dependencies),
 * then a method on the schema. A schema none of these can convert is described, not dropped.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StandardSchemaV1 } from '../../runtime/contract/standard-schema.js';

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;

/** Which side of a schema: what a caller sends (`input`), or what a handler returns to it (`output`). */
export type SchemaSide = 'input' | 'output';

interface StandardJsonSchemaProps {
  jsonSchema?: {
    input?: (options: { target: string }) => JsonSchema;
    output?: (options: { target: string }) => JsonSchema;
  };
}

type ValibotConverter = (schema: unknown, options: Record<string, unknown>) => JsonSchema;

/** Converters found per project: one import of each, whatever the number of functions. */
export class JsonSchemaConverter {
  readonly #root: string;
  #valibot: Promise<ValibotConverter | undefined> | undefined;
  constructor(root: string) {
    this.#root = root;
  }

  /**
   * The JSON Schema of one side of `schema`, without `$schema`; a description of the schema
   * when it cannot be converted (a transform with no JSON form, a library without a converter).
   * @example await converter.convert(z.object({ name: z.string() }), 'input')
   */
  async convert(schema: StandardSchemaV1, side: SchemaSide): Promise<JsonSchema> {
    const props = schema['~standard'] as StandardSchemaV1.Props & StandardJsonSchemaProps;
    const vendor = props.vendor;
    try {
      const standard = props.jsonSchema?.[side];
      if (typeof standard === 'function') return clean(standard({ target: 'draft-2020-12' }));
      if (vendor === 'valibot') {
        const convert = await this.#valibotConverter();
        if (convert !== undefined) return clean(convert(schema, { errorMode: 'ignore', typeMode: side }));
      }
      const own = (schema as { toJSONSchema?: () => JsonSchema; toJsonSchema?: () => JsonSchema }).toJSONSchema;
      if (typeof own === 'function') return clean(own.call(schema));
    } catch (error) {
      return { description: `declared with ${vendor}; its JSON Schema failed: ${(error as Error).message}` };
    }
    return {
      description: `declared with ${vendor}, which has no JSON Schema converter here${vendor === 'valibot' ? ' (install @valibot/to-json-schema)' : ''}`,
    };
  }

  #valibotConverter(): Promise<ValibotConverter | undefined> {
    this.#valibot ??= (async () => {
      for (const from of [join(this.#root, 'package.json'), import.meta.url]) {
        try {
          const file = createRequire(from).resolve('@valibot/to-json-schema');
          const mod = (await import(pathToFileURL(file).href)) as { toJsonSchema?: ValibotConverter };
          if (typeof mod.toJsonSchema === 'function') return mod.toJsonSchema;
        } catch {
          // Not installed there: try the next place.
        }
      }
      return undefined;
    })();
    return this.#valibot;
  }
}

/** Drops the top-level `$schema` (OpenAPI 3.1 sets the dialect once for the document). */
function clean(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}
