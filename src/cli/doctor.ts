/**
 * `cloudfn doctor`: runs the signing troubleshooting list (docs/platform-contract.md#signing) offline, one line per check,
 * ✓ or ✗ with the fix (and ! for a risk worth knowing).
 */
import { runDoctor } from '../sign/index.js';
import { parseCommandArgs, required } from './args.js';
import { helpText } from './help.js';
import { libraryCall, readBodyOption } from './sign.js';

const USAGE = `usage: cloudfn doctor --private-key f [--public-key uploaded.pem] [--key-version v] [--platform-public-key p.pem]
                      [--body-file f | --body text] [--method M --url u [--authorization '<header value>']]

Checks, as far as can be done offline: the pair signs and verifies, the uploaded key is that pair's,
format and size, key_version given, the body is stable, the string to sign matches the request,
and the header's timestamp is inside the platform's one-hour window by this machine's clock.
Keys are a file path, the PEM text itself ("$APP_PRIVATE_KEY"), or --private-key=… ; all work.
Exit 1 when a check fails.`;

const MARK = { pass: '✓', fail: '✗', warn: '!' } as const;

/** Runs `cloudfn doctor`. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, {
    'private-key': { type: 'string' },
    'public-key': { type: 'string' },
    'key-version': { type: 'string' },
    'platform-public-key': { type: 'string' },
    'body-file': { type: 'string' },
    body: { type: 'string' },
    method: { type: 'string' },
    url: { type: 'string' },
    authorization: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    process.stdout.write(helpText(USAGE, ['signing.md']) + '\n');
    return 0;
  }
  const body = readBodyOption(values['body-file'], values.body);
  const checks = libraryCall(() =>
    runDoctor({
      privateKey: required(values['private-key'], 'private-key', 'app_private_key.pem'),
      ...(values['public-key'] === undefined ? {} : { publicKey: values['public-key'] }),
      ...(values['key-version'] === undefined ? {} : { keyVersion: values['key-version'] }),
      ...(values['platform-public-key'] === undefined ? {} : { platformPublicKey: values['platform-public-key'] }),
      ...(body === undefined ? {} : { body }),
      ...(values.method === undefined ? {} : { method: values.method }),
      ...(values.url === undefined ? {} : { url: values.url }),
      ...(values.authorization === undefined ? {} : { authorization: values.authorization }),
    }),
  );
  for (const check of checks) {
    const detail = check.detail === undefined ? '' : `: ${check.detail}`;
    process.stdout.write(`${MARK[check.status]} ${check.title}${detail}\n`);
  }
  return checks.some((c) => c.status === 'fail') ? 1 : 0;
}
