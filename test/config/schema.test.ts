/**
 * The shipped JSON Schema of cloudfn.config.json: generated from the option table, so it is
 * compared with a fresh generation (stale means `npm run reference`), it knows exactly the keys
 * the loader accepts, and the templates point at it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFileKeys } from '../../runtime/serve/config-file.js';
import { TOOL_CONFIG_KEYS } from '../../src/build/project-config.js';
import { CONFIG_SCHEMA_PATH, CONFIG_SCHEMA_REF, configSchema, configSchemaText } from '../../src/config/schema.js';
import { REPO } from '../testing/ensure-dist.js';

type Schema = { properties: Record<string, Record<string, unknown>>; additionalProperties: unknown };

describe('cloudfn.config.schema.json', () => {
  it('is what the option table generates (run npm run reference when this fails)', () => {
    expect(readFileSync(join(REPO, CONFIG_SCHEMA_PATH), 'utf8')).toBe(configSchemaText());
  });

  it('knows exactly the keys the loader accepts, and refuses others', () => {
    const schema = configSchema() as Schema;
    expect(Object.keys(schema.properties).sort()).toEqual([...configFileKeys(TOOL_CONFIG_KEYS)].sort());
    expect(schema.additionalProperties).toBe(false);
  });

  it('carries each validator: range, enum, pattern and default', () => {
    const { properties } = configSchema() as Schema;
    expect(properties['port']).toMatchObject({ type: 'integer', minimum: 0, maximum: 65535, default: 8000 });
    expect(properties['protoAction']).toMatchObject({ enum: ['error', 'remove'], default: 'error' });
    expect(properties['healthPath']).toMatchObject({ type: 'string', pattern: '^(/.*|off)$' });
    expect(properties['limits']).toMatchObject({ additionalProperties: false });
    for (const [key, property] of Object.entries(properties))
      expect(
        Object.keys(property).filter((k) => k !== 'description'),
        key,
      ).not.toEqual([]);
  });

  it.each(['starter', 'media', 'callback'])('is named by $schema in the %s template', (template) => {
    const config = JSON.parse(readFileSync(join(REPO, 'templates', template, 'cloudfn.config.json'), 'utf8')) as {
      $schema: string;
    };
    expect(config.$schema).toBe(CONFIG_SCHEMA_REF);
    // In a project, ./node_modules/cloudfn is this package's root.
    expect(existsSync(join(REPO, config.$schema.replace('./node_modules/cloudfn/', '')))).toBe(true);
  });
});
