/**
 * `cloudfn client [project] --out <file>.ts [--include <fn>]... [--exclude <fn>]... [--import-types]`:
 * write the typed client of a project's functions for the mini-program that calls them
 * (docs/contracts.md#the-typed-client); at an app root, one client of every service
 * (docs/client.md#one-client-for-the-app).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadProjectConfig } from '../build/project-config.js';
import { findAppRoot } from '../app/index.js';
import { clientFunctions, type LeftOut } from '../contract/client-functions.js';
import { clientSource } from '../contract/client-source.js';
import { inlineTypes } from '../contract/client-types.js';
import { loadContractProject } from '../contract/project.js';
import { writeAppClient } from '../contract/write-app-client.js';
import { OptionsError, parseOrHelp, projectFolder, required } from './args.js';
import type { CommandHelp } from './help.js';

export const HELP: CommandHelp = {
  name: 'client',
  usage: ['client [project] --out <file>.ts [--include <fn>]... [--exclude <fn>]... [--import-types]'],
  description: `Writes a typed client of the project's functions: createClient(cloud) takes anything with the
platform's callContainer(options) (a mini-program's cloud object, or cloudfn/client's client) and
returns one method per function, nested by folder (videos/list is api.videos.list(params)). Params
are typed from config.params or the handler, results from config.result or the handler's return,
written out in the file by the project's TypeScript: the file type-checks alone, in a project with
none of the server's files or packages. Functions the platform calls are left out: timers
(config.schedule), the liveData path, callbacks (names ending in callback), and those with
config.client false; --include and --exclude decide the rest. A call answered 4xx/5xx rejects
with a FunctionCallError carrying statusCode, code, issues and logid.

At an app root (a cloudfn.config.json with "services": [...]) it writes ONE file for the app:
createClient(tt, { envID }) returns one entry per service (api.rank.top(...)), each service's
calls sent through tt.createCloud({ envID, serviceID }) (cloudfn/client's createCloud in Node).
Functions only other services call (config.client 'inner-call') are left out too.`,
  options: [
    ['--out <file>', 'the TypeScript file to write (required)'],
    ['--include <fn>', 'offer this function (a name, or a pattern with *) even if the platform calls it; repeatable'],
    ['--exclude <fn>', 'leave this function (a name, or a pattern with *) out; repeatable'],
    [
      '--import-types',
      "read the types from the functions' files with typeof import instead (monorepos whose\nmini-program's tsc can read the server's files and packages)",
    ],
  ],
  examples: [
    ['client --out ../miniapp/src/api.ts', "write the client of this project into the mini-program's sources"],
    ['client ./app --out client/api.ts --exclude start_game', 'write the client of ./app, without start_game'],
  ],
  pages: ['contracts.md', 'cli.md'],
};

/** What `writeClient` did. */
export interface WrittenClient {
  /** The functions offered. */
  count: number;
  left: LeftOut[];
  /** Why the types are read with `typeof import` although not asked, when they are. */
  fallback: string | undefined;
}

/**
 * Writes the client of the project at `root` to `out`.
 * @example await writeClient('/srv/app', '/srv/miniapp/src/api.ts', { exclude: ['start_game'] })
 */
export async function writeClient(
  root: string,
  out: string,
  options: { include?: readonly string[]; exclude?: readonly string[]; importTypes?: boolean } = {},
): Promise<WrittenClient> {
  const project = await loadContractProject(root);
  const config = await loadProjectConfig(root);
  const { kept, left } = clientFunctions(project.functions, config, options);
  const functions = kept.map((fn) => ({ name: fn.name, file: fn.file ?? `functions/${fn.name}.ts` }));
  let fallback: string | undefined;
  let types: ReturnType<typeof inlineTypes> | undefined;
  if (options.importTypes !== true) {
    types = inlineTypes(root, functions);
    if (!types.ok) fallback = types.reason;
  }
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, clientSource(functions, { root, out, ...(types?.ok ? { types: types.byName } : {}) }));
  return { count: functions.length, left, fallback };
}

export async function run(argv: string[]): Promise<number> {
  const args = parseOrHelp(
    argv,
    {
      out: { type: 'string' },
      include: { type: 'string', multiple: true },
      exclude: { type: 'string', multiple: true },
      'import-types': { type: 'boolean' },
    },
    HELP,
  );
  if (args === undefined) return 0;
  const { values, positionals } = args;
  const root = projectFolder(positionals, 'client', 'cloudfn client ./app --out api.ts');
  const out = resolve(required(values.out, 'out', 'src/api.ts'));
  if (!/\.[cm]?ts$/.test(out)) throw new OptionsError(`--out must name a TypeScript file (.ts), got ${values.out}`);
  const selection = {
    ...(values.include === undefined ? {} : { include: values.include }),
    ...(values.exclude === undefined ? {} : { exclude: values.exclude }),
    importTypes: values['import-types'] === true,
  };
  let folders: string[] | undefined;
  try {
    // At the app root itself one client for every service; in a service folder, that service's.
    const app = findAppRoot(root);
    folders = app !== undefined && app.root === resolve(root) ? app.services.map((service) => service.dir) : undefined;
  } catch (error) {
    throw new OptionsError((error as Error).message);
  }
  if (folders !== undefined) {
    const services = await writeAppClient(folders, out, selection);
    for (const service of services)
      if (service.fallback !== undefined)
        process.stderr.write(
          `cloudfn: warning: ${service.id}'s types are read from its functions' files (typeof import), not written out: ${service.fallback}\n`,
        );
    const counts = services
      .map((service) => `${service.id}: ${service.count} function${service.count === 1 ? '' : 's'}`)
      .join(', ');
    const left = services
      .flatMap((service) => service.left.map((fn) => `${service.id}/${fn.name} (${fn.why})`))
      .join(', ');
    process.stderr.write(
      `wrote ${values.out}: ${services.length} service${services.length === 1 ? '' : 's'} (${counts})${left === '' ? '' : `; left out: ${left} (--include offers one)`}\n`,
    );
    return 0;
  }
  const written = await writeClient(root, out, selection);
  if (written.fallback !== undefined)
    process.stderr.write(
      `cloudfn: warning: the types are read from the functions' files (typeof import), not written out: ${written.fallback}\n`,
    );
  const left = written.left.map((fn) => `${fn.name} (${fn.why})`).join(', ');
  process.stderr.write(
    `wrote ${values.out}: ${written.count} function${written.count === 1 ? '' : 's'}${left === '' ? '' : `; left out: ${left} (--include offers one)`}\n`,
  );
  return 0;
}
