/**
 * `cloudfn client [project] --out <file>.ts`: write the typed client of a project's functions
 * for the code that calls them (docs/contracts.md#the-typed-client).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { clientSource } from '../contract/client-source.js';
import { loadContractProject } from '../contract/project.js';
import { OptionsError, parseOrHelp, projectFolder, required } from './args.js';
import type { CommandHelp } from './help.js';

export const HELP: CommandHelp = {
  name: 'client',
  usage: ['client [project] --out <file>.ts'],
  description: `Writes a typed client of the project's functions: createClient(cloud) takes anything with the
platform's callContainer(options) (a mini-program's cloud object, or cloudfn/client's client) and
returns one method per function, nested by folder (videos/list is api.videos.list(params)). Params
are typed from config.params or the handler, results from config.result or the handler's return.
The file imports the functions' types only, so nothing of the server reaches a bundle. A call
answered 4xx/5xx rejects with a FunctionCallError carrying statusCode, code, issues and logid.
cloudfn dev --client <file>.ts writes it again whenever a function changes.`,
  options: [['--out <file>', 'the TypeScript file to write (required)']],
  examples: [
    ['client --out ../miniapp/src/api.ts', "write the client of this project into the mini-program's sources"],
    ['client ./app --out client/api.ts', 'write the client of ./app'],
  ],
  pages: ['contracts.md', 'cli.md'],
};

/**
 * Writes the client of the project at `root` to `out`; returns the number of functions.
 * @example await writeClient('/srv/app', '/srv/miniapp/src/api.ts')
 */
export async function writeClient(root: string, out: string): Promise<number> {
  const project = await loadContractProject(root);
  const functions = project.functions.map((fn) => ({ name: fn.name, file: fn.file ?? `functions/${fn.name}.ts` }));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, clientSource(functions, { root, out }));
  return functions.length;
}

export async function run(argv: string[]): Promise<number> {
  const args = parseOrHelp(
    argv,
    {
      out: { type: 'string' },
    },
    HELP,
  );
  if (args === undefined) return 0;
  const { values, positionals } = args;
  const root = projectFolder(positionals, 'client', 'cloudfn client ./app --out api.ts');
  const out = resolve(required(values.out, 'out', 'src/api.ts'));
  if (!/\.[cm]?ts$/.test(out)) throw new OptionsError(`--out must name a TypeScript file (.ts), got ${values.out}`);
  const count = await writeClient(root, out);
  process.stderr.write(`wrote ${values.out}: ${count} functions\n`);
  return 0;
}
