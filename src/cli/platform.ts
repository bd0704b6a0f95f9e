/**
 * `cloudfn platform`: run the local emulator of the open platform, and
 * `cloudfn platform keys add`: register an app public key in its data folder, and
 * `cloudfn platform keys`: list the platform key pairs (the default and one per appid).
 */
import { hostGuard } from '../dev/host-guard.js';
import { devAppEnv } from '../dev/with-platform.js';
import { addAppKey, createPlatform, PlatformError, type PlatformOptions } from '../platform/index.js';
import { DEFAULT_DATA_DIR, readPlatformEnv } from '../platform/media-api/platform-options.js';
import { listPlatformKeys } from '../platform/media-api/keys/key-pairs.js';
import { Logger } from '../../runtime/log/logger.js';
import { parseAllowedHosts } from '../../runtime/options.js';
import { exitOnSignals } from '../../runtime/serve/shutdown.js';
import { OptionsError, parseCommandArgs, required } from './args.js';
import { type CommandHelp, formatHelp } from './help.js';

export const HELP: CommandHelp = {
  name: 'platform',
  usage: [
    'platform [--port 4000] [--data .cloudfn/platform] [--reset] [options]',
    'platform keys add --data <dir> --appid <id> --key-version <v> --public-key <pem or file>',
    'platform keys [--data <dir>]',
  ],
  description: `Runs the local emulator of the open platform: POST /oauth/client_token/, POST
/api/cloud_voc/<operation> and signed media links. \`platform keys\` lists the platform key pairs
(the default, one per appid); \`platform keys add\` registers an app public key.`,
  options: [
    ['-p, --port <n>', 'port (env CLOUDFN_PLATFORM_PORT, default 4000)'],
    ['--host <h>', 'address (default 127.0.0.1)'],
    [
      '--allowed-hosts <h>',
      'Host names answered besides loopback and --host, comma-separated, or true\nfor any (env CLOUDFN_ALLOWED_HOSTS; docs/dev.md#who-may-call-the-dev-server)',
    ],
    ['--data <dir>', 'state, keys and media (env CLOUDFN_PLATFORM_DATA, default .cloudfn/platform)'],
    ['--reset', 'empty the data folder first (the platform key pair is kept)'],
    ['--client <key:secret>', 'accept only these client credentials (repeatable; default: any pair)'],
    ['--token-ttl <s>', 'access token lifetime in seconds (default 7200)'],
    ['--env-id <id>', 'known env_id values (repeatable; default: any)'],
    ['--domain <host>', 'extra media domains for get_video_by_vid (repeatable)'],
    [
      '--appid <id>',
      'a mini-program with its own platform key pair (repeatable); public keys\nin <data>/platform_keys/public/<appid>.pem, for createPlatformKeyStore',
    ],
    ['--callback-url <url>', 'POST signed notifications there when uploads and transcodes end'],
    ['--faults <spec>', 'e.g. latency=0.5:200,500=0.1,expired-token=0.05,bad-signature=0.05,rate-limit=0.1'],
    ['--review-delay <ms>', '99 -> 98 after upload (default 10000)'],
    ['--job-delay <ms>', 'time in each upload job state (default 500)'],
    ['--transcode-delay <ms>', 'time in each transcode state (default 500)'],
    ['--max-source-bytes <n>', 'largest source file (default 2147483648)'],
    ['--preset <p>', 'x264/x265 preset (default veryfast)'],
    ['--no-ffmpeg', 'simulate probing and transcoding even when ffmpeg is installed'],
  ],
  examples: [
    ['platform', 'serve the emulator on http://127.0.0.1:4000'],
    ['platform --faults latency=0.5:200,500=0.1 --reset', 'with injected faults, from an empty state'],
    ['platform keys --data .cloudfn/platform', 'list the platform key pairs'],
  ],
  pages: ['platform.md'],
};

function integer(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0)
    throw new OptionsError(`--${flag} must be a whole number of at least 0, got ${JSON.stringify(value)}`);
  return n;
}

function clients(pairs: string[] | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const at = pair.indexOf(':');
    if (at <= 0 || at === pair.length - 1)
      throw new OptionsError(`--client must be key:secret, got ${JSON.stringify(pair)}`);
    result[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return result;
}

/** The `--allowed-hosts` flag or `CLOUDFN_ALLOWED_HOSTS`, checked as `cloudfn dev` checks `allowedHosts`. */
export function readAllowedHosts(raw: string | undefined, flag = false): readonly string[] | true {
  if (raw === undefined || raw.trim() === '') return [];
  try {
    return parseAllowedHosts(raw, flag ? '--allowed-hosts' : 'CLOUDFN_ALLOWED_HOSTS');
  } catch (error) {
    throw new OptionsError(`allowedHosts ${(error as Error).message}`);
  }
}

/** Runs `cloudfn platform`. */
export async function run(argv: string[]): Promise<number> {
  // `cloudfn platform keys add --help` is the command's help too, not an unknown flag.
  if (argv[0] === 'keys' && !argv.includes('--help') && !argv.includes('-h')) return keys(argv.slice(1));
  const { values, positionals } = parseCommandArgs(argv, {
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    'allowed-hosts': { type: 'string' },
    data: { type: 'string' },
    reset: { type: 'boolean' },
    client: { type: 'string', multiple: true },
    'token-ttl': { type: 'string' },
    'env-id': { type: 'string', multiple: true },
    domain: { type: 'string', multiple: true },
    appid: { type: 'string', multiple: true },
    'callback-url': { type: 'string' },
    faults: { type: 'string' },
    'review-delay': { type: 'string' },
    'job-delay': { type: 'string' },
    'transcode-delay': { type: 'string' },
    'max-source-bytes': { type: 'string' },
    preset: { type: 'string' },
    'no-ffmpeg': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(formatHelp(HELP) + '\n');
    return 0;
  }
  if (positionals.length > 0)
    throw new OptionsError(
      `platform takes no positional arguments, got ${positionals.join(' ')}; did you mean cloudfn platform keys add?`,
    );
  const text = readPlatformEnv(
    {
      ...{ port: values.port, dataDir: values.data, callbackUrl: values['callback-url'], faults: values.faults },
      allowedHosts: values['allowed-hosts'],
    },
    process.env,
  );
  const allowedHosts = readAllowedHosts(text.allowedHosts, values['allowed-hosts'] !== undefined);
  const options: PlatformOptions = {
    port: integer(text.port, 'port'),
    host: values.host,
    dataDir: text.dataDir,
    reset: values.reset === true,
    clients: clients(values.client),
    tokenTtlSeconds: integer(values['token-ttl'], 'token-ttl'),
    envIds: values['env-id'],
    domains: values.domain,
    appids: values.appid,
    callbackUrl: text.callbackUrl,
    faults: text.faults,
    reviewDelayMs: integer(values['review-delay'], 'review-delay'),
    jobDelayMs: integer(values['job-delay'], 'job-delay'),
    transcodeDelayMs: integer(values['transcode-delay'], 'transcode-delay'),
    maxSourceBytes: integer(values['max-source-bytes'], 'max-source-bytes'),
    transcodePreset: values.preset,
    ffmpeg: values['no-ffmpeg'] !== true,
    // Who may call it: its loopback names, --host and --allowed-hosts; writes only from no page.
    guard: hostGuard({
      ...{ host: values.host ?? '127.0.0.1', allowedHosts, setting: '--allowed-hosts or CLOUDFN_ALLOWED_HOSTS' },
      writes: () => true,
    }),
  };
  let platform;
  try {
    platform = await createPlatform(options);
  } catch (error) {
    if (error instanceof PlatformError) throw new OptionsError(error.message);
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new OptionsError(`port ${String(options.port ?? 4000)} is in use; pass --port with a free one`);
    throw error;
  }
  const clientMode =
    Object.keys(options.clients ?? {}).length === 0
      ? 'any non-empty client_key/client_secret (dev mode)'
      : Object.keys(options.clients ?? {}).join(', ');
  // The same dev app key as `cloudfn dev --platform`, in the same data folder: once one run
  // registered it, the appid needs signed calls, so the printed lines must carry the key.
  const clientEnv = await devAppEnv(platform, platform.dataDir);
  process.stdout.write(
    [
      `cloudfn platform listening on ${platform.url}`,
      `  data folder:          ${platform.dataDir}`,
      `  platform public key:  ${platform.publicKeyPath}`,
      ...(platform.appPublicKeys.size === 0
        ? []
        : [`  keys per mini-program: ${[...platform.appPublicKeys.keys()].join(', ')} in ${platform.platformKeysDir}`]),
      `  ffmpeg:               ${platform.ffmpeg ? 'found: uploads are probed and transcodes really run' : 'absent: media is simulated'}`,
      `  client credentials:   ${clientMode}`,
      `  callbacks:            ${platform.options.callbackUrl ?? 'off (--callback-url)'}`,
      '',
      'point the media client at it (createMediaClient() reads these):',
      ...Object.entries(clientEnv).map(([name, value]) => `  ${name}=${value}`),
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    // The emulator stops like the dev server: on Ctrl-C, SIGTERM, SIGHUP, or when its parent
    // (npm run, a test runner) goes away, so it never holds its port as an orphan.
    const remove = exitOnSignals({
      // The emulator prints plain lines of its own: a signal is the user's doing and needs no
      // line, but its parent going away does, so that a stop nobody typed is on the record.
      logger: new Logger({
        write(record) {
          if (String(record.msg).startsWith('the parent process exited')) process.stdout.write(`${record.msg}\n`);
        },
      }),
      stop: () => platform.close().then(resolve, resolve),
      message: (signal) => `${signal} received: stopping the platform emulator`,
      // After a graceful stop, `run` returns and the CLI exits; a second signal exits at once.
      exit: (code) => (code === 0 ? remove() : process.exit(code)),
      parent: true,
    });
  });
  return 0;
}

async function keys(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === 'list' || sub.startsWith('--')) return listKeys(sub === 'list' ? rest : argv);
  if (sub !== 'add')
    throw new OptionsError(
      `unknown platform keys command ${JSON.stringify(sub)}; use cloudfn platform keys [list] or cloudfn platform keys add --data <dir> --appid <id> --key-version <v> --public-key <pem>`,
    );
  const { values } = parseCommandArgs(rest, {
    data: { type: 'string' },
    appid: { type: 'string' },
    'key-version': { type: 'string' },
    'public-key': { type: 'string' },
  });
  const dataDir = readPlatformEnv({ dataDir: values.data }, process.env).dataDir ?? DEFAULT_DATA_DIR;
  const appid = required(values.appid, 'appid', 'tt0123456789abcdef');
  const keyVersion = required(values['key-version'], 'key-version', '1');
  const publicKey = required(values['public-key'], 'public-key', 'app_public_key.pem');
  try {
    const file = await addAppKey(dataDir, appid, keyVersion, publicKey);
    process.stdout.write(
      `registered key_version ${keyVersion} for appid ${appid} in ${file}; requests of ${appid} must now carry Platform-Authorization\n`,
    );
  } catch (error) {
    if (error instanceof PlatformError) throw new OptionsError(error.message);
    throw error;
  }
  return 0;
}

/** `cloudfn platform keys`: one line per platform key pair, `*` being the default one. */
function listKeys(argv: string[]): number {
  const { values } = parseCommandArgs(argv, { data: { type: 'string' } });
  const dataDir = values.data ?? process.env['CLOUDFN_PLATFORM_DATA'] ?? '.cloudfn/platform';
  const keys = listPlatformKeys(dataDir);
  if (keys.length === 0)
    throw new OptionsError(
      `${dataDir} holds no platform keys yet; start the emulator once (cloudfn platform --data ${dataDir} --appid <id>)`,
    );
  for (const key of keys)
    process.stdout.write(
      `${key.appid === '*' ? '* (default)' : key.appid}  ${key.fingerprint}  ${key.publicKeyPath}\n`,
    );
  return 0;
}
