/**
 * `components.mysql: true`: a MariaDB server (or MySQL's, when that is what is installed) for the
 * session. Its data is initialized once in `<dir>/mysql/data/` and kept; it listens on
 * 127.0.0.1 only, and the account of account.ts is created (or its password set again) through
 * the server's socket as the local root user, with every privilege, as the platform gives the
 * app's account. No database is made: the app creates its own, as on the platform.
 */
import { type ChildProcess, execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Account } from './account.js';
import { createComponentError } from './errors.js';
import type { LocalServer, ServerTimes } from './running.js';
import { installed, spawnServer, stopProcess } from './server-process.js';
import { exampleUrl } from './settings.js';

const run = promisify(execFile);

export const MYSQL_INSTALL = 'apt-get install mariadb-server, or brew install mariadb';

/** The programs of the installed server: MariaDB's names first, then MySQL's. */
interface Flavour {
  readonly server: string;
  readonly client: string;
  /** The arguments that initialize an empty data folder, or the initializer program and its own. */
  readonly init: (datadir: string) => [string, string[]];
  readonly extra: readonly string[];
}

function flavour(): Flavour | undefined {
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0 ? ['--user=root'] : [];
  const mariadb = installed('mariadbd')
    ? 'mariadbd'
    : installed('mysqld') && isMariaDb('mysqld')
      ? 'mysqld'
      : undefined;
  if (mariadb !== undefined) {
    const initializer = installed('mariadb-install-db') ? 'mariadb-install-db' : 'mysql_install_db';
    const client = installed('mariadb') ? 'mariadb' : 'mysql';
    if (!installed(initializer) || !installed(client)) return undefined;
    return {
      server: mariadb,
      client,
      init: (datadir) => [
        initializer,
        [`--datadir=${datadir}`, '--auth-root-authentication-method=normal', '--skip-test-db', ...asRoot],
      ],
      extra: asRoot,
    };
  }
  if (installed('mysqld') && installed('mysql'))
    return {
      server: 'mysqld',
      client: 'mysql',
      init: (datadir) => ['mysqld', ['--no-defaults', '--initialize-insecure', `--datadir=${datadir}`, ...asRoot]],
      extra: [...asRoot, '--mysqlx=OFF'],
    };
  return undefined;
}

function isMariaDb(command: string): boolean {
  return /mariadb/i.test(spawnSync(command, ['--version'], { encoding: 'utf8' }).stdout ?? '');
}

/** A socket path short enough for the 108-byte limit, one per data folder. */
const socketFor = (dir: string): string =>
  join(tmpdir(), `cloudfn-mysql-${createHash('sha256').update(dir).digest('hex').slice(0, 12)}.sock`);

async function initialize(kind: Flavour, dir: string, times: ServerTimes): Promise<void> {
  const datadir = join(dir, 'data');
  if (existsSync(join(datadir, 'mysql'))) return;
  // Into a side folder first: a half-made data folder is never taken for a made one.
  const partial = join(dir, 'data.partial');
  rmSync(partial, { recursive: true, force: true });
  const [command, args] = kind.init(partial);
  try {
    await run(command, args, { timeout: times.startMs * 6 });
  } catch (error) {
    const failure = error as { stderr?: string; message: string };
    throw new Error(`${command} failed: ${(failure.stderr ?? failure.message).trim().split('\n').pop()}`);
  }
  renameSync(partial, datadir);
}

async function grantAccount(kind: Flavour, socket: string, account: Account): Promise<void> {
  const user = `'${account.user}'@'%'`;
  const sql = [
    `CREATE USER IF NOT EXISTS ${user} IDENTIFIED BY '${account.password}'`,
    `ALTER USER ${user} IDENTIFIED BY '${account.password}'`,
    `GRANT ALL PRIVILEGES ON *.* TO ${user} WITH GRANT OPTION`,
    'FLUSH PRIVILEGES',
  ].join('; ');
  await run(kind.client, ['--no-defaults', `--socket=${socket}`, '-uroot', '-e', sql], { timeout: 30_000 });
}

export const mysqlServer: LocalServer = {
  name: 'mysql',
  check() {
    if (flavour() === undefined)
      throw createComponentError(
        'CLOUDFN_COMPONENT_NOT_INSTALLED',
        'mysql',
        'mariadbd (or mysqld) with its client',
        MYSQL_INSTALL,
        exampleUrl('mysql'),
      );
  },
  url: (account, port) => `mysql://${account.user}:${encodeURIComponent(account.password)}@127.0.0.1:${port}`,
  async start(dir, account, port, times): Promise<ChildProcess> {
    const kind = flavour()!;
    await initialize(kind, dir, times);
    const socket = socketFor(dir);
    const child = await spawnServer(
      kind.server,
      [
        '--no-defaults',
        `--datadir=${join(dir, 'data')}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        `--socket=${socket}`,
        `--pid-file=${join(dir, 'mysqld.pid')}`,
        `--log-error=${join(dir, 'mysql.log')}`,
        '--skip-name-resolve',
        ...kind.extra,
      ],
      { port, log: join(dir, 'mysql.log'), timeoutMs: times.startMs },
    );
    try {
      await grantAccount(kind, socket, account);
    } catch (error) {
      await stopProcess(child.pid, times.stopMs);
      throw new Error(
        `the account could not be made: ${(error as { stderr?: string }).stderr?.trim() ?? String(error)}`,
      );
    }
    return child;
  },
};
