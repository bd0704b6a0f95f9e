/**
 * `cloudfn dev [root] --port <n> --host <h> --inspect[=[host:]port]`: serve a project with
 * reload, readable logs and the debug console.
 */
import { CLOUDFN_PREFIX } from '../../runtime/options.js';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CloudfnError } from '../../runtime/errors.js';
import {
  type AppData,
  appDataTarget,
  findAppRoot,
  importAppData,
  parseAppData,
  strayDataWarning,
  summarize,
} from '../app/index.js';
import { startDevPlatform, startDevServer } from '../dev/index.js';
import { superviseDevProcess } from '../dev/dev-process.js';
import { EXIT_NOTE_VAR } from '../dev/exit-note.js';
import { startDevSession } from '../dev/session.js';
import { onParentGone } from '../../runtime/serve/parent-gone.js';
import { fileURLToPath } from 'node:url';
import { COMPONENTS_DATA_VAR, componentsDirFor } from '../platform/components/service.js';
import { STORAGE_DATA_VAR, storageDirFor } from '../platform/storage/setting.js';
import { PlatformError } from '../platform/index.js';
import { PLATFORM_ENV_VARS, readPlatformEnv } from '../platform/media-api/platform-options.js';
import { prepareDevStore } from '../platform/sdk/database/index.js';
import { OptionsError, parseCommandArgs } from './args.js';
import { type CommandHelp, formatHelp } from './help.js';
import { readAllowedHosts } from './platform.js';

export const HELP: CommandHelp = {
  name: 'dev',
  usage: [
    'dev [root...] [--port 8000] [--host 127.0.0.1] [--inspect[=[host:]port]] [--platform [--platform-port 4000]',
    '    [--platform-callback-url <url>]] [--no-typecheck] [--functions-dir functions] [--client <file>.ts]',
    '    [--seed <file>.json] [--ephemeral]',
  ],
  description: `Serves every function of <root>/functions (default: the current folder), rebuilding a function
when its files change, with readable logs and the debug console at ${CLOUDFN_PREFIX}/. Loads <root>/.env
(the real environment wins). Colours are off when NO_COLOR is set or the output is not a
terminal. Types are checked beside the server with the project's TypeScript (tsc --watch) and
errors shown here and on the console page. The functions' OpenAPI document is served at
${CLOUDFN_PREFIX}/openapi.json. Several folders are the services of one app (docs/services.md): each runs
as its own service (SERVICE_ID from serviceId, else made from the folder's name) on --port and
the ports that follow, calling the others at http://{from}-{to}.inner-call.dyc.ivolces.com, with
the app's components started once for all. At an app root (a cloudfn.config.json with
"services", docs/apps.md) it runs every service; in a service folder, that service alone; either
way the data (document store, components, live rooms) is the app's, in <app root>/.cloudfn/.`,
  options: [
    ['-p, --port <n>', 'port to listen on (PORT, default 8000)'],
    ['--host <h>', 'address to listen on (HOST, default 127.0.0.1)'],
    ['--inspect[=[host:]port]', 'open the debugger (default 127.0.0.1:9229)'],
    [
      '--platform',
      'start the platform emulator beside it (data in <root>/.cloudfn/platform) and point\nthe media client of every function at it',
    ],
    ['--platform-port <n>', 'port of the emulator (default 4000)'],
    [
      '--platform-callback-url <url>',
      'have the emulator POST its signed callbacks there (CLOUDFN_PLATFORM_CALLBACK_URL),\ne.g. http://127.0.0.1:8000/notify',
    ],
    ['--functions-dir <dir>', 'the folder of the functions (config functionsDir; . is the root)'],
    ['--no-typecheck', 'do not run the type checker'],
    [
      '--client <file>',
      'write the typed client of cloudfn client there, and again when a function\nis added or removed',
    ],
    [
      '--seed <file>',
      "write a file of cloudfn db export into the app's data before serving (documents,\nRedis keys, MySQL databases), replacing what it names; no function is called",
    ],
    ['--ephemeral', "run on empty data in a temporary folder (the store, the components' servers), removed\nat exit"],
  ],
  examples: [
    ['dev', 'serve this folder with reload on http://127.0.0.1:8000'],
    ['dev --platform', 'with the local emulator of the open platform'],
    ['dev --inspect --port 3000', 'with the debugger, on port 3000'],
    ['dev --client ../miniapp/src/api.ts', 'keep the typed client of the functions up to date'],
    ['dev --seed seed.json', 'start from known data'],
    ['dev game profile', 'two services of one app, on ports 8000 and 8001'],
    ['dev --ephemeral --seed seed.json', 'start from known data each time, and leave no trace'],
  ],
  pages: ['dev.md', 'services.md', 'platform.md', 'platform-projects.md'],
};

/** `--inspect=9230` is Node's spelling; parseArgs wants the value as its own option. */
function splitInspect(argv: string[]): { argv: string[]; inspect: string | undefined } {
  let inspect: string | undefined;
  const rest: string[] = [];
  for (const arg of argv) {
    if (arg === '--inspect') inspect = '';
    else if (arg.startsWith('--inspect=')) inspect = arg.slice('--inspect='.length);
    else rest.push(arg);
  }
  return { argv: rest, inspect };
}

export async function run(argv: string[]): Promise<number> {
  const split = splitInspect(argv);
  const { values, positionals } = parseCommandArgs(split.argv, {
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    platform: { type: 'boolean' },
    'platform-port': { type: 'string' },
    'platform-callback-url': { type: 'string' },
    'no-typecheck': { type: 'boolean' },
    'functions-dir': { type: 'string' },
    client: { type: 'string' },
    seed: { type: 'string' },
    ephemeral: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(formatHelp(HELP) + '\n');
    return 0;
  }
  const roots = serviceRoots(positionals);
  if (roots.length > 1) {
    for (const [flag, given] of [
      ['--inspect', split.inspect !== undefined],
      ['--client', values.client !== undefined],
      ['--functions-dir', values['functions-dir'] !== undefined],
    ] as const)
      if (given)
        throw new OptionsError(
          `${flag} goes with one folder, got ${roots.length} (${positionals.join(' ') || 'the services of the app root'}); run that service alone with cloudfn dev <folder> ${flag}`,
        );
  }
  const root = roots[0]!;
  let platformPort: number | undefined;
  if (values['platform-port'] !== undefined) {
    platformPort = Number(values['platform-port']);
    if (!Number.isInteger(platformPort) || platformPort < 0 || platformPort > 65535) {
      throw new OptionsError(
        `--platform-port must be an integer from 0 to 65535, got ${JSON.stringify(values['platform-port'])}`,
      );
    }
    if (!values.platform) throw new OptionsError('--platform-port goes with --platform');
  }
  // The emulator's callbacks: a flag, else CLOUDFN_PLATFORM_CALLBACK_URL, as `cloudfn platform` reads it.
  const callbackUrl = readPlatformEnv({ callbackUrl: values['platform-callback-url'] }, process.env).callbackUrl;
  if (values['platform-callback-url'] !== undefined && !values.platform)
    throw new OptionsError('--platform-callback-url goes with --platform');
  try {
    const platform = values.platform
      ? await startDevPlatform(root, {
          port: platformPort ?? 4000,
          ...(callbackUrl === undefined ? {} : { callbackUrl }),
          allowedHosts: readAllowedHosts(readPlatformEnv({}, process.env).allowedHosts),
        })
      : undefined;
    // The seed, checked whole before anything is written (documents and each component's data).
    const seed = values.seed === undefined ? undefined : readSeed(values.seed);
    // The database's store: seeded and (for --ephemeral) created before any function loads.
    const store = await prepareDevStore({
      root,
      env: { ...process.env, ...platform?.env },
      ...(seed === undefined ? {} : { seed: values.seed!, seedDump: seed.documents }),
      ephemeral: values.ephemeral === true,
    });
    process.once('exit', () => store.dispose());
    // --ephemeral: the components' servers and the object store keep their data beside the
    // store, removed with it.
    const componentsEnv: Record<string, string> =
      values.ephemeral === true
        ? {
            [COMPONENTS_DATA_VAR]: join(store.dataDir, 'components'),
            [STORAGE_DATA_VAR]: join(store.dataDir, 'storage'),
          }
        : {};
    const app = findAppRoot(root);
    const warning = app === undefined || values.ephemeral === true ? undefined : strayDataWarning(app);
    if (warning !== undefined) process.stdout.write(`${warning}\n`);
    if (seed !== undefined && (seed.redis !== undefined || seed.mysql !== undefined || seed.storage !== undefined)) {
      const target = await appDataTarget(
        root,
        store.dataDir,
        componentsEnv[COMPONENTS_DATA_VAR] ?? componentsDirFor(root),
        componentsEnv[STORAGE_DATA_VAR] ?? storageDirFor(root),
      );
      const change = await importAppData(
        target,
        { documents: {}, ...withoutDocuments(seed) },
        { merge: false },
        values.seed!,
      );
      process.stdout.write(
        `components: seeded ${summarize(change).split('; ').slice(1).join('; ')} from ${values.seed}\n`,
      );
    }
    if (values.ephemeral === true)
      process.stdout.write(
        `database: an ephemeral store in ${store.dataDir}, removed at exit (cloudfn db reaches it with CLOUDFN_PLATFORM_DATA=${store.dataDir})\n`,
      );
    if (store.seeded !== undefined)
      process.stdout.write(
        `database: seeded ${store.seeded.collections.map((c) => `${c.name} (${c.count})`).join(', ') || 'no collections'} from ${values.seed}\n`,
      );
    // One dySDK.database() store for the app: its data home's.
    const shared = { ...platform?.env, ...store.env, ...componentsEnv, [PLATFORM_ENV_VARS.dataDir]: store.dataDir };
    // The folder's server runs as a child, started again when a function ends its process;
    // the emulator stays here, and stops once the services have.
    if (roots.length > 1 || process.env[EXIT_NOTE_VAR] === undefined)
      try {
        return roots.length > 1
          ? await runSession(roots, values, shared)
          : await runSupervised(root, values, split.inspect, shared);
      } finally {
        await platform?.close();
      }
    await startDevServer({
      root,
      env: { ...platform?.env, ...store.env, ...componentsEnv },
      ...(values.port === undefined ? {} : { port: values.port }),
      ...(values.host === undefined ? {} : { host: values.host }),
      ...(split.inspect === undefined ? {} : { inspect: split.inspect === '' ? true : split.inspect }),
      handleSignals: true,
      typecheck: values['no-typecheck'] !== true,
      ...(values['functions-dir'] === undefined ? {} : { functionsDir: values['functions-dir'] }),
      ...(values.client === undefined ? {} : { client: resolve(values.client) }),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new OptionsError(
        `${(error as Error).message}: another server holds the port; pass --port or --platform-port`,
      );
    if (error instanceof PlatformError) throw new OptionsError(error.message);
    // Start-up problems are the user's to fix: one line (plus a code frame for compile errors).
    if (error instanceof CloudfnError) throw new OptionsError(error.message);
    throw error;
  }
  // The server keeps the process alive; a signal ends it with exit code 0.
  return 0;
}

/**
 * The folders to serve: those named (a name that is no folder here may be a service of the app:
 * `cloudfn dev rank game` inside `profile/`); without any, every service of the app when run at
 * its root, else this folder (a single project, or one service with the app's data).
 */
function serviceRoots(positionals: readonly string[]): string[] {
  let app: ReturnType<typeof findAppRoot>;
  try {
    app = findAppRoot(process.cwd());
  } catch (error) {
    if (error instanceof CloudfnError) throw new OptionsError(error.message);
    throw error;
  }
  if (positionals.length === 0)
    return app !== undefined && app.current === undefined ? app.services.map((service) => service.dir) : [resolve('.')];
  return positionals.map((folder) => {
    const named = app?.services.find((service) => service.name === folder.replace(/\/+$/, ''));
    return existsSync(folder) || named === undefined ? resolve(folder) : named.dir;
  });
}

/** Reads and checks a seed file; a bad one is refused whole before anything is written. */
function readSeed(file: string): AppData {
  let text: string;
  try {
    text = readFileSync(resolve(file), 'utf8');
  } catch (error) {
    throw new OptionsError(`${file} cannot be read (${(error as Error).message}); nothing was written`);
  }
  return parseAppData(text, file);
}

const withoutDocuments = ({ documents: _documents, ...rest }: AppData): Omit<AppData, 'documents'> => rest;

/** Several folders: one `cloudfn dev` per service (src/dev/session.ts), until a signal or every one exits. */
async function runSession(
  roots: string[],
  values: { port?: string | undefined; host?: string | undefined; 'no-typecheck'?: boolean | undefined },
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535 - roots.length + 1)
      throw new OptionsError(
        `--port must be an integer from 0 to ${65535 - roots.length + 1} (the services take the ports that follow it), got ${JSON.stringify(values.port)}`,
      );
  }
  const session = await startDevSession({
    roots,
    ...(port === undefined ? {} : { port }),
    ...(values.host === undefined ? {} : { host: values.host }),
    args: values['no-typecheck'] === true ? ['--no-typecheck'] : [],
    env: Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
  });
  const stop = (): void => void session.close();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, stop);
  const codes = await session.exited;
  await session.close();
  return codes.every((code) => code === 0) ? 0 : 1;
}

/**
 * One folder: its dev server in a child process (src/dev/dev-process.ts), started again when a
 * function ends it; until a signal, or a first start that fails (its exit code).
 */
async function runSupervised(
  root: string,
  values: {
    port?: string | undefined;
    host?: string | undefined;
    'no-typecheck'?: boolean | undefined;
    'functions-dir'?: string | undefined;
    client?: string | undefined;
  },
  inspect: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const args = [
    ...(values.host === undefined ? [] : ['--host', values.host]),
    ...(inspect === undefined ? [] : [inspect === '' ? '--inspect' : `--inspect=${inspect}`]),
    ...(values['no-typecheck'] === true ? ['--no-typecheck'] : []),
    ...(values['functions-dir'] === undefined ? [] : ['--functions-dir', values['functions-dir']]),
    ...(values.client === undefined ? [] : ['--client', resolve(values.client)]),
  ];
  const dev = superviseDevProcess({
    ...{ cli: fileURLToPath(new URL('./index.js', import.meta.url)), root, args, port: values.port },
    env: { ...process.env, ...env },
    output: 'inherit',
    say: (line) => process.stdout.write(`dev server ${line}\n`),
    firstFailureEnds: true,
  });
  // The server says which signal stopped it: it gets the one this process got.
  const stop = (signal: NodeJS.Signals): void => void dev.stop(signal);
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const signal of signals) process.on(signal, stop);
  // Killing what started it (npm run dev) by its PID stops it too.
  const removeParent = onParentGone(() => stop('SIGTERM'));
  try {
    return await dev.ended;
  } finally {
    removeParent();
    for (const signal of signals) process.off(signal, stop);
  }
}
