/**
 * `cloudfn init <dir> [--template starter|media|callback|live-room] [--name <package name>]`: start a
 * project from a template.
 */
import { basename, relative, resolve } from 'node:path';
import { CloudfnError } from '../../runtime/errors.js';
import type { Layout } from '../init/platform-layout.js';
import { initApp, parseServicesFlag } from '../init/app-scaffold.js';
import { initProject, listTemplates } from '../init/scaffold.js';
import { OptionsError, parseCommandArgs } from './args.js';
import { type CommandHelp, formatHelp } from './help.js';

/** The help; the template list is read from templates/ when the module loads. */
export const HELP: CommandHelp = help();

function help(): CommandHelp {
  return {
    name: 'init',
    usage: [
      'init <dir> [--template starter] [--name <package name>] [--layout functions|platform]',
      'init <dir> --services <name[:template]>,… [--layout functions|platform]',
    ],
    description: `Creates <dir> (new or empty) from a template: package.json depending on cloudfn, tsconfig.json,
cloudfn.config.json, functions/, tests with vitest and cloudfn/testing, a README, a Dockerfile
and a Knative Service.

templates: ${listTemplates().join(', ')}
  starter    hello, a multipart upload, and a media function configured from CLOUDFN_MEDIA_*
  media      video functions with the media client (cloudfn/media), tested against the emulator
  callback   a function verifying the platform's signed callbacks (cloudfn/sign)
  live-room  the platform's live-room flow: start_game, live_data_callback, websocket_callback,
             finish_game and a timer, tested with invokeLiveData and openGateway
  service    a bare service: one function and its test (the default of --services)

With --services, <dir> is an app root (docs/apps.md): one package.json with one cloudfn
dependency whose npm workspaces are the services (one npm install), cloudfn.config.json listing
them in "services", one README, and each service in its folder from its template.`,
    options: [
      ['-t, --template <name>', 'the template (default starter)'],
      ['--name <package name>', 'the package name (default: from the folder name)'],
      ['--services <list>', 'an app of several services: name[:template], comma-separated (template default service)'],
      [
        '--layout <functions|platform>',
        'platform puts each function file at the project root, as the platform\'s own templates\ndo, with "functionsDir": "." in cloudfn.config.json, and _platform-env.ts, which reads\nCLOUD_ENV and SERVICE_ID (docs/platform-projects.md)',
      ],
    ],
    examples: [
      ['init my-app', 'a new project in ./my-app from the starter template'],
      ['init videos --template media', 'a project with the media client'],
      ['init legacy --layout platform', "functions at the root, as in the platform's templates"],
      ['init shop --services game:live-room,rank,profile', 'an app root of three services'],
    ],
    pages: ['deploy.md', 'apps.md'],
  };
}

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    template: { type: 'string', short: 't' },
    name: { type: 'string' },
    layout: { type: 'string' },
    services: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(formatHelp(HELP) + '\n');
    return 0;
  }
  if (positionals.length !== 1)
    throw new OptionsError(
      `init takes one folder, got ${positionals.length === 0 ? 'none' : positionals.join(' ')}; e.g. cloudfn init my-app`,
    );
  const dir = resolve(positionals[0]!);
  if (values.services !== undefined) return runApp(dir, values.services, values);
  let result;
  try {
    result = initProject(dir, {
      template: values.template,
      name: values.name,
      ...(values.layout === undefined ? {} : { layout: values.layout as Layout }),
    });
  } catch (error) {
    if (error instanceof CloudfnError) throw new OptionsError(error.message);
    throw error;
  }
  const shown = relative(process.cwd(), dir) || '.';
  const source =
    result.cloudfn.from === 'vendor'
      ? `cloudfn ${result.cloudfn.version} is not on the npm registry, so it was packed into ${result.cloudfn.spec.slice('file:'.length)}\n` +
        `and package.json depends on ${result.cloudfn.spec}; commit vendor/ with the project.\n`
      : '';
  process.stdout.write(
    `Created ${shown} from the ${result.template} template${result.layout === 'platform' ? ', in the platform layout' : ''} (${result.files.length} files${result.name === basename(dir) ? '' : `; package name ${result.name}`}).\n` +
      source +
      `\n  cd ${shown}\n  npm install\n  npm run dev     # http://localhost:8000\n  npm test\n`,
  );
  return 0;
}

/** `--services`: an app root. */
function runApp(
  dir: string,
  services: string,
  values: { template?: string | undefined; name?: string | undefined; layout?: string | undefined },
): number {
  if (values.template !== undefined)
    throw new OptionsError(
      `--template goes with a single project; with --services give each service its template: --services game:${values.template},rank`,
    );
  let result;
  try {
    result = initApp(dir, {
      services: parseServicesFlag(services),
      ...(values.name === undefined ? {} : { name: values.name }),
      ...(values.layout === undefined ? {} : { layout: values.layout as Layout }),
    });
  } catch (error) {
    if (error instanceof CloudfnError) throw new OptionsError(error.message);
    throw error;
  }
  const shown = relative(process.cwd(), dir) || '.';
  const width = Math.max(...result.services.map((s) => s.name.length));
  const source =
    result.cloudfn.from === 'vendor'
      ? `cloudfn ${result.cloudfn.version} is not on the npm registry, so it was packed into ${result.cloudfn.spec.slice('file:'.length)}\n` +
        `and package.json depends on ${result.cloudfn.spec}; commit vendor/ with the app.\n`
      : '';
  process.stdout.write(
    `Created the app ${shown} with ${result.services.length} services${result.layout === 'platform' ? ', in the platform layout' : ''}:\n` +
      result.services.map((s) => `  ${s.name.padEnd(width)}  ${s.template} (${s.files} files)`).join('\n') +
      `\n${source}\n  cd ${shown}\n  npm install     # one install for every service\n  npm run dev     # every service, from http://localhost:8000\n  npm test        # every service's tests\n`,
  );
  return 0;
}
