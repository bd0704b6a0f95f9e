/**
 * `cloudfn db export|import|reset`: the local database stand-in's store as one JSON file, both
 * ways, and emptied; beside a running `cloudfn dev` or without one (the store's lock keeps
 * either from losing the other's writes).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { CloudfnError } from '../../runtime/errors.js';
import {
  type AppDataChange,
  type AppDataTarget,
  appDataTarget,
  exportAppData,
  findAppRoot,
  formatAppData,
  importAppData,
  parseAppData,
  resetAppData,
  strayDataWarning,
  summarize,
} from '../app/index.js';
import { PlatformError } from '../platform/errors.js';
import { componentsDirFor } from '../platform/components/service.js';
import { storageDirFor } from '../platform/storage/setting.js';
import { projectDataDir } from '../platform/sdk/database/index.js';
import { OptionsError, parseOrHelp } from './args.js';
import type { CommandHelp } from './help.js';
import { printJson } from './json.js';

export const HELP: CommandHelp = {
  name: 'db',
  usage: [
    'db export [file] [--root <dir>] [--json]',
    'db import <file> [--merge] [--root <dir>] [--json]',
    'db reset [--yes] [--root <dir>] [--json]',
  ],
  description: `Manages the app's local data: the store of dySDK.database() (the server SDK stand-in), the
data of each component cloudfn runs locally ("components": { "redis": true, "mysql": true }
in any service of the app) and the local TOS's buckets and objects ("tos": true), whether or
not cloudfn dev is running (the store's lock keeps a running dev's writes; the component
servers are shared with it, or started for the command).
Run in the app root, a service folder or below, it works on the app's one data home,
<app root>/.cloudfn/ (a single project's own .cloudfn/); the store is CLOUDFN_PLATFORM_DATA when
set. A component given by URL (mongo, or redis/mysql as a URL) is your own server: left alone,
and said so (docs/apps.md).
  export   writes everything to <file> (stdout without one) as one JSON object: the documents
           (dates as {"$date": "<ISO time>"}), every Redis key with its type, value and ttlMs,
           the MySQL databases the app made as mariadb-dump's SQL, and the local TOS's buckets
           with each object's key, type, metadata and bytes (base64). A project without local
           components writes the documents alone, as before (collection -> documents)
  import   writes <file>: replaces the collections it names (--merge: upserts by _id), the
           Redis keys it names, the MySQL databases it names (--merge: creates missing
           tables, replaces rows by primary key), and the TOS buckets it names (--merge: writes
           over the objects of the same key, keeps the rest). A file of documents alone
           still imports. A bad file is refused in one line naming what is wrong, and nothing
           is written
  reset    removes every collection, Redis key, MySQL database and TOS object of the app,
           after asking (--yes does not ask)
`,
  options: [
    ['--root <dir>', 'the project folder (default: the current folder)'],
    [
      '--merge',
      'import: replace the documents with the same _id (MySQL rows with the same key) and add the\nothers, keep the rest',
    ],
    ['-y, --yes', 'reset: do not ask'],
    ['--json', 'print what was written as one JSON object: { collections: [{ name, count }] }'],
  ],
  examples: [
    ['db export out.json', 'save the store, e.g. the state a bug needs'],
    ['db import out.json', 'bring those collections back'],
    ['db import fixtures.json --merge', 'upsert a few documents by _id'],
    ['db reset --yes', 'empty the store without asking'],
  ],
  json: '{ "action": "export" | "import" | "reset", "file": string | null, "collections": { "name": string, "count": number }[],\n  "redisKeys"?: number, "mysqlDatabases"?: string[], "notes"?: string[] }',
  pages: ['apps.md', 'platform-projects.md', 'cli.md'],
};

const ACTIONS = ['export', 'import', 'reset'] as const;

/** Asks on the terminal; false unless the answer is y or yes. */
async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

async function act(
  action: (typeof ACTIONS)[number],
  positionals: string[],
  values: { merge?: boolean; yes?: boolean; json?: boolean },
  target: AppDataTarget,
): Promise<number> {
  const json = values.json === true;
  const { dataDir } = target;
  const report = (change: AppDataChange, file: string | null, line: string): number => {
    if (json) {
      // A project without components answers exactly what it always did.
      const { notes, ...rest } = change;
      return printJson({ action, file, ...rest, ...(notes.length === 0 ? {} : { notes }) }, 0);
    }
    for (const note of change.notes) process.stderr.write(`${note}\n`);
    process.stderr.write(`${line}\n`);
    return 0;
  };
  if (action === 'export') {
    if (positionals.length > 1) throw new OptionsError(`db export takes at most one file, got ${positionals.length}`);
    const file = positionals[0];
    if (file === undefined && json)
      throw new OptionsError('db export --json needs a file: the dump itself goes to stdout without one');
    const { data, change } = await exportAppData(target);
    if (file === undefined) {
      for (const note of change.notes) process.stderr.write(`${note}\n`);
      process.stdout.write(formatAppData(data));
      return 0;
    }
    writeFileSync(resolve(file), formatAppData(data));
    return report(change, file, `exported ${summarize(change)} from ${dataDir} to ${file}`);
  }
  if (action === 'import') {
    if (positionals.length !== 1)
      throw new OptionsError(`db import takes one file, got ${positionals.length}; e.g. cloudfn db import out.json`);
    const file = positionals[0]!;
    let text: string;
    try {
      text = readFileSync(resolve(file), 'utf8');
    } catch (error) {
      throw new OptionsError(`${file} cannot be read: ${(error as Error).message}`);
    }
    const change = await importAppData(target, parseAppData(text, file), { merge: values.merge === true }, file);
    return report(change, file, `imported ${summarize(change)} into ${dataDir}${values.merge ? ' (merged)' : ''}`);
  }
  if (positionals.length > 0) throw new OptionsError(`db reset takes no file, got ${positionals.join(' ')}`);
  const what = `every collection in ${dataDir}${target.local.map((name) => ` and every ${name === 'redis' ? 'Redis key' : 'MySQL database'} of the local ${name}`).join('')}${target.storageDir === undefined ? '' : ` and every bucket and object of the local TOS in ${target.storageDir}`}`;
  if (values.yes !== true) {
    if (!process.stdin.isTTY)
      throw new OptionsError(`db reset would remove ${what}; pass --yes to do it without asking`);
    if (!(await confirm(`Remove ${what}? [y/N] `))) {
      process.stderr.write('nothing was removed\n');
      return 1;
    }
  }
  const change = await resetAppData(target);
  const names = change.collections.map((c) => c.name).join(', ');
  const components = summarize({ ...change, collections: [] })
    .split('; ')
    .slice(1)
    .join('; ');
  return report(
    change,
    null,
    `${names === '' ? 'nothing to remove' : `removed ${names}`} from ${dataDir}${components === '' ? '' : `; ${components} removed`}`,
  );
}

export async function run(argv: string[]): Promise<number> {
  const args = parseOrHelp(
    argv,
    {
      root: { type: 'string' },
      merge: { type: 'boolean' },
      yes: { type: 'boolean', short: 'y' },
      json: { type: 'boolean' },
    },
    HELP,
  );
  if (args === undefined) return 0;
  const [action, ...rest] = args.positionals;
  if (!ACTIONS.includes(action as (typeof ACTIONS)[number]))
    throw new OptionsError(
      `db takes export, import or reset${action === undefined ? '' : `, got ${JSON.stringify(action)}`}; e.g. cloudfn db export out.json`,
    );
  if (args.values.merge === true && action !== 'import') throw new OptionsError('--merge goes with db import');
  try {
    const root = resolve(args.values.root ?? '.');
    // Run in the app root, a service folder or below: the app's one data home.
    const app = findAppRoot(root);
    const warning = app === undefined ? undefined : strayDataWarning(app);
    if (warning !== undefined) process.stderr.write(`${warning}\n`);
    const target = await appDataTarget(
      root,
      projectDataDir(root, process.env),
      componentsDirFor(root),
      storageDirFor(root),
    );
    return await act(action as (typeof ACTIONS)[number], rest, args.values, target);
  } catch (error) {
    // A bad file, a locked or corrupt store, a component that cannot start: one line naming it.
    if (error instanceof PlatformError || error instanceof CloudfnError) throw new OptionsError(error.message);
    throw error;
  }
}
