/**
 * `cloudfn verify`: checks a response or callback signature (three lines), or with
 * `--authorization` a request (five lines), and when it fails says which slip is likely.
 */
import {
  diagnoseRequest,
  diagnoseResponse,
  loadPublicKey,
  parseAuthorization,
  SignatureError,
  verifyCallback,
  verifyRequest,
  type KeyInput,
} from '../sign/index.js';
import { OptionsError, parseCommandArgs, required } from './args.js';
import { type CommandHelp, formatHelp } from './help.js';
import { printJson } from './json.js';
import { libraryCall, readBodyOption } from './sign.js';

/** What `cloudfn verify --json` prints; documented in HELP.json and docs/cli.md. */
interface VerifyJson {
  valid: boolean;
  kind: 'request' | 'response';
  appid: string | null;
  keyVersion: string | null;
  timestamp: string | null;
  code: string | null;
  message: string | null;
  likelyCause: string | null;
}

export const HELP: CommandHelp = {
  name: 'verify',
  usage: [
    'verify --public-key f --timestamp t --nonce n --signature s [--body-file f | --body text] [--max-age s] [--json]',
    "verify --public-key f --authorization '<header value>' --method M --url u [--body-file f | --body text]",
    '       [--max-age s] [--json]',
  ],
  description: `The first form checks a response or callback (platform public key); the second a request (app
public key). Exit 0 prints "valid"; exit 1 prints the reason and the likely cause.`,
  options: [
    ['--public-key <key>', 'a file path, the PEM text itself ("$PLATFORM_PUBLIC_KEY"), or --public-key=… ; all work'],
    ['--timestamp, --nonce, --signature', 'the response or callback headers'],
    ['--authorization <value>', 'the Platform-Authorization header of a request'],
    ['--method <M>, --url <u>', 'the request, as it was signed'],
    ['--body-file <f>, --body <text>', 'the raw body'],
    ['--max-age <s>', 'seconds a signature stays valid (default 3600 for requests, none for responses)'],
    ['--json', 'print one JSON object on stdout (see docs/cli.md)'],
  ],
  examples: [
    [
      'verify --public-key platform_public_key.pem --timestamp 1700000000 --nonce N --signature S --body-file body.json',
      'a callback the platform sent',
    ],
    [
      'verify --public-key app_public_key.pem --authorization "$HEADER" --method POST --url /api/x --body \'{}\' --json',
      'a request, as JSON',
    ],
  ],
  json: `{ "valid": boolean,
  "kind": "request" | "response",            // the second form, or the first
  "appid": string | null, "keyVersion": string | null, "timestamp": string | null,  // requests
  "code": string | null, "message": string | null, "likelyCause": string | null }  // when invalid`,
  pages: ['signing.md', 'cli.md'],
};

/** Runs `cloudfn verify`. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, {
    'public-key': { type: 'string' },
    timestamp: { type: 'string' },
    nonce: { type: 'string' },
    signature: { type: 'string' },
    authorization: { type: 'string' },
    method: { type: 'string' },
    url: { type: 'string' },
    'body-file': { type: 'string' },
    body: { type: 'string' },
    'max-age': { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    process.stdout.write(formatHelp(HELP) + '\n');
    return 0;
  }
  const publicKey: KeyInput = libraryCall(() =>
    loadPublicKey(required(values['public-key'], 'public-key', 'platform_public_key.pem')),
  );
  const body = readBodyOption(values['body-file'], values.body) ?? '';
  const maxAge = values['max-age'] === undefined ? undefined : Number(values['max-age']);
  if (maxAge !== undefined && !(Number.isInteger(maxAge) && maxAge >= 0)) {
    throw new OptionsError(`--max-age must be whole seconds, got ${JSON.stringify(values['max-age'])}`);
  }
  const kind = values.authorization !== undefined ? 'request' : 'response';
  const answer = (fields: Partial<VerifyJson>, code: number): number =>
    printJson(
      {
        valid: code === 0,
        kind,
        appid: null,
        keyVersion: null,
        timestamp: null,
        code: null,
        message: null,
        likelyCause: null,
        ...fields,
      } satisfies VerifyJson,
      code,
    );
  try {
    if (values.authorization !== undefined) {
      const method = required(values.method, 'method', 'POST');
      const url = required(values.url, 'url', "'/v1/videos?page=1'");
      const result = await verifyRequest({
        authorization: values.authorization,
        method,
        url,
        body,
        publicKeys: () => publicKey,
        nonceStore: false,
        ...(maxAge === undefined ? {} : { maxAgeSeconds: maxAge }),
      });
      if (values.json === true)
        return answer({ appid: result.appid, keyVersion: result.keyVersion, timestamp: String(result.timestamp) }, 0);
      process.stdout.write(
        `valid: appid ${result.appid}, key_version ${result.keyVersion}, timestamp ${result.timestamp}\n`,
      );
      return 0;
    }
    const timestamp = required(values.timestamp, 'timestamp', '1700000000');
    const nonce = required(values.nonce, 'nonce', '5K8264ILTKCH16CQ2502SI8ZNMTM67VS');
    const signature = required(values.signature, 'signature', 'base64...');
    await verifyCallback({
      headers: { 'platform-timestamp': timestamp, 'platform-nonce-str': nonce, 'platform-signature': signature },
      rawBody: body,
      publicKey,
      nonceStore: false,
      ...(maxAge === undefined
        ? { maxAgeSeconds: Number.MAX_SAFE_INTEGER, maxFutureSkewSeconds: Number.MAX_SAFE_INTEGER }
        : { maxAgeSeconds: maxAge }),
    });
    if (values.json === true) return answer({}, 0);
    process.stdout.write('valid\n');
    return 0;
  } catch (error) {
    if (error instanceof OptionsError) throw error;
    if (!(error instanceof SignatureError)) throw new OptionsError((error as Error).message);
    if (values.json === true) {
      const likely = error.code === 'SIGN_BAD_SIGNATURE' ? likelyCause(values, publicKey, body) : null;
      return answer({ code: error.code, message: error.message, likelyCause: likely }, 1);
    }
    process.stderr.write(`invalid: ${error.code}: ${error.message}\n`);
    if (error.code === 'SIGN_BAD_SIGNATURE')
      process.stderr.write(`likely cause: ${likelyCause(values, publicKey, body)}\n`);
    return 1;
  }
}

function likelyCause(
  values: Record<string, string | boolean | undefined>,
  publicKey: KeyInput,
  body: string | Buffer,
): string {
  const str = (name: string) => values[name] as string;
  let cause: string | undefined;
  let keyHint: string;
  try {
    if (values.authorization !== undefined) {
      const parts = parseAuthorization(str('authorization'));
      cause = diagnoseRequest({
        publicKey,
        method: str('method'),
        url: str('url'),
        timestamp: parts.timestamp,
        nonce: parts.nonce,
        body,
        signature: parts.signature,
      });
      keyHint = `this public key is not the pair of the private key that signed, or key_version ${parts.keyVersion} names another key (run cloudfn doctor)`;
    } else {
      cause = diagnoseResponse({
        publicKey,
        timestamp: str('timestamp'),
        nonce: str('nonce'),
        body,
        signature: str('signature'),
      });
      keyHint =
        'the body differs from the one received (verify the raw text, not a parsed object), or this is not the platform public key of this mini-program';
    }
  } catch {
    return 'the signature does not fit this key and data';
  }
  return (
    cause ??
    `none of the usual slips (trailing LF, CRLF, re-serialized JSON, \\u escapes, query left out) explains it: ${keyHint}`
  );
}
