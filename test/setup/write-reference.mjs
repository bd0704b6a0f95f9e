// Writes the generated reference files from dist/ (run `npm run build` first, or `npm run
// reference`): docs/cloudfn.config.schema.json from the option table, docs/cli.md from the
// commands' help. test/config/schema.test.ts and test/cli/reference.test.ts fail when they are stale.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const repo = new URL('../..', import.meta.url).pathname;
const { CONFIG_SCHEMA_PATH, configSchemaText } = await import(join(repo, 'dist/src/config/index.js'));
writeFileSync(join(repo, CONFIG_SCHEMA_PATH), configSchemaText());
console.log(`wrote ${CONFIG_SCHEMA_PATH}`);
try {
  const { CLI_REFERENCE_PATH, cliReference } = await import(join(repo, 'dist/src/cli/reference.js'));
  writeFileSync(join(repo, CLI_REFERENCE_PATH), await cliReference());
  console.log(`wrote ${CLI_REFERENCE_PATH}`);
} catch (error) {
  if (error.code !== 'ERR_MODULE_NOT_FOUND') throw error;
}
