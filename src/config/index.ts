/** The config file's tooling: its JSON Schema and how the CLI reads a project's config. */
export { CONFIG_SCHEMA_PATH, CONFIG_SCHEMA_REF, configSchema, configSchemaText } from './schema.js';
export { BUILD_CONFIG_KEYS, SERVICE_CONFIG_KEYS, TOOL_CONFIG_KEYS } from './config-keys.js';
