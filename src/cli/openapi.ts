/**
 * `cloudfn openapi [project] [--out file]`: print (or write) the OpenAPI 3.1 document of a
 * project's functions, from their declared params and results (docs/contracts.md).
 */
import { CLOUDFN_PREFIX } from '../../runtime/options.js';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { openApiDocument } from '../contract/openapi.js';
import { loadContractProject } from '../contract/project.js';
import { timerTriggers } from '../contract/timers.js';
import { loadProjectConfig } from '../build/project-config.js';
import { parseOrHelp, projectFolder } from './args.js';
import type { CommandHelp } from './help.js';

export const HELP: CommandHelp = {
  name: 'openapi',
  usage: ['openapi [project] [--out openapi.json]'],
  description: `Prints the OpenAPI 3.1 document of the project's functions: one operation per function and
method (GET with its query parameters, POST with its body by content type), the result, and the
error body with its issues. Schemas come from each function's config.params and config.result
(Standard JSON Schema, or the library's own converter); a function without them is listed with
what is known. cloudfn dev serves the same document at ${CLOUDFN_PREFIX}/openapi.json, and cloudfn build
writes it beside the bundles.`,
  options: [
    ['--out <file>', 'write the document to a file instead of stdout'],
    ['--timers <file>', "also write the functions' timer triggers (config.schedule) there, as JSON"],
  ],
  examples: [
    ['openapi', 'print the document of the project in this folder'],
    ['openapi ./app --out openapi.json', 'write the document of ./app to openapi.json'],
  ],
  pages: ['contracts.md', 'cli.md'],
};

export async function run(argv: string[]): Promise<number> {
  const args = parseOrHelp(
    argv,
    {
      out: { type: 'string' },
      timers: { type: 'string' },
    },
    HELP,
  );
  if (args === undefined) return 0;
  const { values, positionals } = args;
  const root = projectFolder(positionals, 'openapi', 'cloudfn openapi ./app');
  const project = await loadContractProject(root);
  const document = await openApiDocument(project.functions, {
    root,
    ...(project.title === undefined ? {} : { title: project.title }),
    ...(project.version === undefined ? {} : { version: project.version }),
  });
  const text = `${JSON.stringify(document, null, 2)}\n`;
  if (values.timers !== undefined) {
    const triggers = timerTriggers(project.functions, await loadProjectConfig(root));
    writeFileSync(resolve(values.timers), `${JSON.stringify(triggers, null, 2)}\n`);
  }
  if (values.out === undefined) process.stdout.write(text);
  else {
    writeFileSync(resolve(values.out), text);
    const count = project.functions.length;
    process.stderr.write(`wrote ${values.out}: ${count} function${count === 1 ? '' : 's'}\n`);
  }
  return 0;
}
