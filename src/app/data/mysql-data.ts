/**
 * A local MySQL component's data as JSON, both ways, through the server's own tools: the
 * databases the app made (not `mysql`, `sys` and the schemas), their schemas and rows as the SQL
 * of `mariadb-dump` (or `mysqldump`), loaded back with the `mariadb` (or `mysql`) client. An
 * import replaces each database the file names (`--merge`: creates the missing tables and
 * replaces rows by primary key, keeping the others); a reset drops every database the app made.
 */
import { spawn } from 'node:child_process';
import { installed } from '../../platform/components/server-process.js';

/** The file's `mysql` entry. */
export interface MysqlData {
  /** The databases the SQL creates. */
  databases: string[];
  /** Their schemas and rows, as the dump tool writes them. */
  sql: string;
}

/** Databases every server has, never exported nor dropped. */
const SYSTEM = new Set(['information_schema', 'mysql', 'performance_schema', 'sys']);

/** A database name the file may give: what the dump tool writes between backquotes. */
export const DATABASE_NAME = /^[A-Za-z0-9_$-]{1,64}$/;

function tool(names: readonly string[]): string {
  const found = names.find((name) => installed(name));
  if (found === undefined) throw new Error(`${names.join(' or ')} is not installed; install mariadb-client`);
  return found;
}

/** Runs a client tool against `url` with `input` on stdin; resolves with its stdout. */
function runTool(command: string, url: string, args: readonly string[], input = ''): Promise<string> {
  const parsed = new URL(url);
  const connection = [
    '--no-defaults',
    `--host=${parsed.hostname}`,
    `--port=${parsed.port || '3306'}`,
    `--user=${decodeURIComponent(parsed.username)}`,
  ];
  return new Promise((resolve, reject) => {
    // The password through the environment, not the command line that `ps` shows.
    const child = spawn(command, [...connection, ...args], {
      env: { ...process.env, MYSQL_PWD: decodeURIComponent(parsed.password) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new Error(`${command} failed: ${Buffer.concat(err).toString('utf8').trim().split('\n').pop()}`));
    });
    child.stdin.end(input);
  });
}

const client = (url: string, args: readonly string[], input?: string): Promise<string> =>
  runTool(tool(['mariadb', 'mysql']), url, args, input);

/** The databases the app made. */
async function appDatabases(url: string): Promise<string[]> {
  const out = await client(url, ['-N', '-B', '-e', 'SHOW DATABASES']);
  return out
    .split('\n')
    .map((line) => line.trim())
    .filter((name) => name !== '' && !SYSTEM.has(name))
    .sort();
}

/**
 * The databases of the server at `url` and their SQL.
 * @example const data = await exportMysql('mysql://cloudfn:pw@127.0.0.1:3307'); // { databases: ['shop'], sql: '…' }
 */
export async function exportMysql(url: string): Promise<MysqlData> {
  const databases = await appDatabases(url);
  if (databases.length === 0) return { databases, sql: '' };
  const sql = await runTool(tool(['mariadb-dump', 'mysqldump']), url, [
    '--databases',
    ...databases,
    '--add-drop-table',
    '--single-transaction',
    '--skip-comments',
    '--skip-dump-date',
    '--routines',
    '--triggers',
  ]);
  return { databases, sql };
}

/**
 * The SQL of a dump made to upsert: tables created only when missing, rows replaced by key.
 * The dump tool writes each of these statements at the start of a line.
 */
function toMerge(sql: string): string {
  return sql
    .split('\n')
    .filter((line) => !line.startsWith('DROP TABLE IF EXISTS '))
    .map((line) =>
      line.startsWith('CREATE TABLE `')
        ? line.replace('CREATE TABLE `', 'CREATE TABLE IF NOT EXISTS `')
        : line.startsWith('INSERT INTO `')
          ? line.replace('INSERT INTO `', 'REPLACE INTO `')
          : line,
    )
    .join('\n');
}

/**
 * Loads `data` into the server at `url`: each database it names is dropped first, unless `merge`.
 * @example await importMysql(url, data, { merge: false });
 */
export async function importMysql(url: string, data: MysqlData, options: { merge: boolean }): Promise<void> {
  if (data.sql === '') return;
  const drop = options.merge ? '' : data.databases.map((name) => `DROP DATABASE IF EXISTS \`${name}\`;\n`).join('');
  await client(url, [], drop + (options.merge ? toMerge(data.sql) : data.sql));
}

/**
 * Drops every database the app made; answers their names.
 * @example await resetMysql(url) // ['shop']
 */
export async function resetMysql(url: string): Promise<string[]> {
  const databases = await appDatabases(url);
  if (databases.length > 0) await client(url, ['-e', databases.map((name) => `DROP DATABASE \`${name}\``).join('; ')]);
  return databases;
}
