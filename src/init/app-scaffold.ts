/**
 * `cloudfn init <dir> --services game:live-room,rank,profile`: an app root of several services.
 * Each service is made from its template (`service`, a bare one, by default) as `initProject`
 * makes a project; then what a single project carries once per folder moves to the root: the one
 * cloudfn dependency (from the registry, or packed once into the root's `vendor/`), the dev tools
 * (vitest, TypeScript), npm's overrides. The root's package.json lists the services as npm
 * workspaces, so one `npm install` installs them all, and its scripts run every service:
 * `dev` (`cloudfn dev` at the root), `test` (each service's tests), `build` (`cloudfn build`).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createError } from '../../runtime/errors.js';
import { APP_CONFIG_FILE } from '../app/app-root.js';
import type { Layout } from './platform-layout.js';
import { type CloudfnSource, initProject, listTemplates, packageNameFor } from './scaffold.js';
import { isPublished, ownVersion, vendorCloudfn } from './vendor.js';

/** A service of the app to make: its folder (and service id) and its template. */
export interface AppServiceSpec {
  readonly name: string;
  /** @default 'service' */
  readonly template?: string;
}

/** Options of `initApp`. */
export interface InitAppOptions {
  readonly services: readonly AppServiceSpec[];
  /** Applied to every service. @default 'functions' */
  readonly layout?: Layout;
  /** The root package's name. @default the folder's name, made valid for npm */
  readonly name?: string;
  /** @default isPublished: asks npm */
  readonly isPublished?: (version: string) => boolean;
}

/** What `initApp` wrote. */
export interface InitAppResult {
  readonly dir: string;
  readonly name: string;
  readonly layout: Layout;
  readonly services: readonly { name: string; template: string; files: number }[];
  readonly cloudfn: CloudfnSource;
}

/** A service's folder name: what the platform takes as a service id (a hostname label). */
const SERVICE_NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Reads `--services game:live-room,rank,profile`.
 * @example parseServicesFlag('game:live-room,rank') // [{ name: 'game', template: 'live-room' }, { name: 'rank', template: 'service' }]
 */
export function parseServicesFlag(value: string): AppServiceSpec[] {
  const templates = listTemplates();
  const specs = value.split(',').map((part) => part.trim());
  const out: AppServiceSpec[] = [];
  for (const spec of specs) {
    const [name = '', template = 'service', ...rest] = spec.split(':');
    if (!SERVICE_NAME.test(name) || rest.length > 0)
      throw createError(
        'CLOUDFN_BAD_CONFIG',
        '--services',
        `${JSON.stringify(spec)} is not a service; write name[:template] with a name of lower-case letters, digits and inner hyphens, e.g. game:live-room,rank`,
      );
    if (!templates.includes(template))
      throw createError(
        'CLOUDFN_BAD_CONFIG',
        '--services',
        `${name} asks for the template ${JSON.stringify(template)}, which does not exist; choose one of ${templates.join(', ')}`,
      );
    if (out.some((other) => other.name === name))
      throw createError('CLOUDFN_BAD_CONFIG', '--services', `names ${name} twice; give each service its own name`);
    out.push({ name, template });
  }
  return out;
}

interface PackageJson {
  name?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  overrides?: Record<string, string>;
  [key: string]: unknown;
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
const writeJson = (file: string, value: unknown): void => writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);

/** Makes the service a workspace of the app: no cloudfn, dev tools or vendor/ of its own. */
function joinApp(dir: string, root: PackageJson): void {
  const pkgFile = join(dir, 'package.json');
  const pkg = readJson<PackageJson>(pkgFile);
  const { cloudfn: _cloudfn, ...dependencies } = pkg.dependencies ?? {};
  root.devDependencies = { ...root.devDependencies, ...pkg.devDependencies };
  root.overrides = { ...root.overrides, ...pkg.overrides };
  delete pkg.devDependencies;
  delete pkg.overrides;
  pkg.dependencies = dependencies;
  writeJson(pkgFile, pkg);
  rmSync(join(dir, 'vendor'), { recursive: true, force: true });
  const configFile = join(dir, APP_CONFIG_FILE);
  if (existsSync(configFile))
    writeFileSync(
      configFile,
      readFileSync(configFile, 'utf8').replace('"./node_modules/cloudfn/', '"../node_modules/cloudfn/'),
    );
}

function readme(name: string, services: readonly AppServiceSpec[], layout: Layout): string {
  const rows = services.map((s) => `| \`${s.name}/\` | ${s.template} | \`cloudfn dev ${s.name}\` |`).join('\n');
  return `# ${name}

An app of ${services.length} services, run, tested and built together with cloudfn${layout === 'platform' ? ', each in the platform layout' : ''}.

| service | template | alone |
|---|---|---|
${rows}

\`\`\`sh
npm install       # one install for every service
npm run dev       # every service, its components (Redis, MySQL) and one data home, .cloudfn/
npm test          # every service's tests
npm run build     # every service into its own dist/, one table
\`\`\`

\`cloudfn.config.json\` here lists the services (\`"services"\`); each service's own
\`cloudfn.config.json\` keeps its settings (\`serviceId\`, \`innerCall\`, \`components\`). Every
command finds this root, from here or from inside a service, and keeps the app's data in
\`.cloudfn/\`: \`npx cloudfn dev rank game\` (a few services), \`npm run dev\` inside a service (that
one alone), \`npx cloudfn db export backup.json\` (documents, Redis keys, MySQL rows),
\`npx cloudfn db import backup.json\`, \`npx cloudfn db reset --yes\`.

Add a service: \`npx cloudfn init <name> --template service\` here, then add its folder to
\`"services"\` and to \`"workspaces"\` in package.json. See cloudfn's docs/apps.md.
`;
}

/**
 * Creates an app root in `dir` (new or empty) with each service from its template.
 * @example initApp('shop', { services: parseServicesFlag('game:live-room,rank,profile'), layout: 'platform' })
 */
export function initApp(dir: string, options: InitAppOptions): InitAppResult {
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0))
    throw createError(
      'CLOUDFN_BAD_CONFIG',
      dir,
      'exists and is not empty; choose a new folder name (cloudfn init never overwrites files)',
    );
  if (options.services.length === 0)
    throw createError('CLOUDFN_BAD_CONFIG', '--services', 'names no service; e.g. --services game:live-room,rank');
  const layout = options.layout ?? 'functions';
  const name = options.name ?? packageNameFor(dir);
  mkdirSync(dir, { recursive: true });
  const root: PackageJson = {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '^20.19.0 || >=22.12.0' },
    workspaces: options.services.map((s) => s.name),
    scripts: {
      dev: 'cloudfn dev',
      test: 'npm run test --workspaces --if-present',
      build: 'cloudfn build',
      typecheck: 'npm run typecheck --workspaces --if-present',
    },
  };
  const made: { name: string; template: string; files: number }[] = [];
  for (const service of options.services) {
    const template = service.template ?? 'service';
    // The service's own dependency on cloudfn is dropped below: never vendored per service.
    const result = initProject(join(dir, service.name), {
      template,
      layout,
      name: `${name}-${service.name}`,
      isPublished: () => true,
    });
    joinApp(result.dir, root);
    made.push({ name: service.name, template, files: result.files.length });
  }
  const version = ownVersion();
  const cloudfn: CloudfnSource = (options.isPublished ?? isPublished)(version)
    ? { version, from: 'registry', spec: `^${version}` }
    : { version, from: 'vendor', spec: `file:${vendorCloudfn(dir)}` };
  const { devDependencies, overrides, ...rest } = root;
  writeJson(join(dir, 'package.json'), {
    ...rest,
    dependencies: { cloudfn: cloudfn.spec },
    devDependencies,
    ...(overrides === undefined || Object.keys(overrides).length === 0 ? {} : { overrides }),
  });
  writeJson(join(dir, APP_CONFIG_FILE), { services: options.services.map((s) => s.name) });
  writeFileSync(join(dir, 'README.md'), readme(name, options.services, layout));
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\ndist/\n.cloudfn/\n.env\n');
  return { dir, name, layout, services: made, cloudfn };
}
