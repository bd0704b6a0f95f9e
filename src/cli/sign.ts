/**
 * `cloudfn sign`: prints the `Platform-Authorization` header for a request, optionally the
 * string to sign with visible line ends, or a ready curl command that sends the signed bytes.
 */
import { readFileSync } from 'node:fs';
import { showLineEnds, signedPath, signRequest, SignatureError } from '../sign/index.js';
import { hasLiteralBackslashN } from '../sign/doctor.js';
import { OptionsError, parseCommandArgs, required } from './args.js';
import { type CommandHelp, formatHelp } from './help.js';

export const HELP: CommandHelp = {
  name: 'sign',
  usage: [
    'sign --private-key f --appid a --key-version v --method M --url u',
    '     [--body-file f | --body text] [--timestamp t] [--nonce n] [--show-string] [--curl <full url>]',
  ],
  description: `Prints Platform-Authorization: SHA256-RSA2048 appid="…",nonce_str="…",timestamp="…",key_version="…",signature="…"`,
  options: [
    ['--private-key <key>', 'a file path, the PEM text itself ("$APP_PRIVATE_KEY"), or --private-key=… ; all work'],
    ['--appid <id>', 'the mini-program'],
    ['--key-version <v>', 'the key_version of the uploaded public key'],
    ['--method <M>', 'the HTTP method'],
    ['--url <u>', 'signed as fetch sends it: a blank as %20, non-ASCII text percent-encoded as UTF-8'],
    ['--body-file <f>, --body <text>', 'the body, byte for byte'],
    ['--timestamp <t>, --nonce <n>', 'fixed values instead of now and a random nonce'],
    ['--show-string', 'also print the string to sign on stderr, LF shown as ⏎'],
    ['--curl <URL>', 'print a curl command instead, sending the signed body byte for byte'],
  ],
  examples: [
    [
      'sign --private-key app_private_key.pem --appid tt123 --key-version 1 --method GET --url /v1/videos',
      'the header for a GET',
    ],
    [
      'sign --private-key "$APP_PRIVATE_KEY" --appid tt123 --key-version 1 --method POST --url /api/x --body \'{"a":1}\' --curl https://example.com/api/x',
      'a ready curl command',
    ],
  ],
  pages: ['signing.md'],
};

/** Runs `cloudfn sign`. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, {
    'private-key': { type: 'string' },
    appid: { type: 'string' },
    'key-version': { type: 'string' },
    method: { type: 'string' },
    url: { type: 'string' },
    'body-file': { type: 'string' },
    body: { type: 'string' },
    timestamp: { type: 'string' },
    nonce: { type: 'string' },
    'show-string': { type: 'boolean' },
    curl: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    process.stdout.write(formatHelp(HELP) + '\n');
    return 0;
  }
  const body = readBodyOption(values['body-file'], values.body);
  const signed = libraryCall(() =>
    signRequest({
      privateKey: required(values['private-key'], 'private-key', 'app_private_key.pem'),
      appid: required(values.appid, 'appid', 'wx1234567890abcdef'),
      keyVersion: required(values['key-version'], 'key-version', '1'),
      method: required(values.method, 'method', 'POST'),
      url: required(values.url, 'url', "'/v1/videos?page=1'"),
      body,
      ...(values.timestamp === undefined ? {} : { timestamp: values.timestamp }),
      ...(values.nonce === undefined ? {} : { nonce: values.nonce }),
    }),
  );
  if (values.body !== undefined && hasLiteralBackslashN(values.body)) {
    process.stderr.write(
      "warning: --body holds the two characters \\n; in a shell '\\n' in single quotes is not a line feed: use $'...' or --body-file\n",
    );
  }
  if (values['show-string'] === true) {
    process.stderr.write(`string to sign (⏎ marks each LF):\n${showLineEnds(signed.stringToSign)}`);
  }
  const header = `Platform-Authorization: ${signed.authorization}`;
  if (values.curl === undefined) {
    process.stdout.write(header + '\n');
    return 0;
  }
  if (!/^https?:\/\//i.test(values.curl))
    throw new OptionsError(
      `--curl needs the full URL (https://host${signed.path}), got ${JSON.stringify(values.curl)}`,
    );
  const curlPath = libraryCall(() => signedPath(values.curl!));
  if (curlPath !== signed.path) {
    throw new OptionsError(
      `--curl sends ${curlPath} but ${signed.path} was signed; give the same path and query to --url and --curl`,
    );
  }
  // The URL as signed, already percent-encoded as fetch would; -g and --path-as-is stop curl
  // from globbing [] {} or rewriting the path, so it sends these bytes.
  const wireUrl = new URL(values.curl).origin + signed.path;
  const parts = [
    'curl',
    '-sS',
    '-g',
    '--path-as-is',
    '-X',
    values.method!.toUpperCase(),
    shellQuote(wireUrl),
    '-H',
    shellQuote(header),
    '-H',
    "'Accept: application/json'",
  ];
  if (signed.body.length > 0) {
    parts.push('-H', "'Content-Type: application/json'");
    // --data-binary keeps every byte; -d would strip line breaks and break the signature.
    parts.push(
      '--data-binary',
      values['body-file'] !== undefined ? shellQuote('@' + values['body-file']) : shellQuote(String(signed.body)),
    );
  }
  process.stdout.write(parts.join(' ') + '\n');
  return 0;
}

/**
 * Reads `--body-file` (bytes, as they are) or `--body` (text); both at once is a mistake.
 * Shared by the sign, verify and doctor commands.
 */
export function readBodyOption(file: string | undefined, text: string | undefined): Buffer | string | undefined {
  if (file !== undefined && text !== undefined) throw new OptionsError('give --body-file or --body, not both');
  if (file === undefined) return text;
  try {
    return readFileSync(file);
  } catch (error) {
    throw new OptionsError(
      `--body-file ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}

/** Runs a library call, turning its argument errors into one-line CLI errors. */
export function libraryCall<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    if (error instanceof SignatureError || error instanceof TypeError) throw new OptionsError(error.message);
    throw error;
  }
}

/** Quotes for a POSIX shell: single quotes keep every byte but the quote itself. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
