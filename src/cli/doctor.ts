/**
 * `cloudfn doctor`: runs the signing troubleshooting list (docs/platform-contract.md#signing) offline, one line per check,
 * ✓ or ✗ with the fix (and ! for a risk worth knowing). First, when the project has a
 * `node_modules/.bin/node`, whether it is the Node running cloudfn (project-node.ts).
 */
import { runDoctor } from '../sign/index.js';
import { parseCommandArgs, required } from './args.js';
import { type CommandHelp, formatHelp } from './help.js';
import { printJson } from './json.js';
import { projectNodeProblem } from './project-node.js';
import { libraryCall, readBodyOption } from './sign.js';

export const HELP: CommandHelp = {
  name: 'doctor',
  usage: [
    'doctor --private-key f [--public-key uploaded.pem] [--key-version v] [--platform-public-key p.pem]',
    "       [--body-file f | --body text] [--method M --url u [--authorization '<header value>']] [--json]",
  ],
  description: `Checks, as far as can be done offline: the pair signs and verifies, the uploaded key is that
pair's, format and size, key_version given, the body is stable, the string to sign matches the
request, and the header's timestamp is inside the platform's one-hour window by this machine's
clock. Prints one line per check, ✓ or ✗ with the fix (! for a risk worth knowing). Exit 1 when
a check fails.`,
  options: [
    ['--private-key <key>', 'a file path, the PEM text itself ("$APP_PRIVATE_KEY"), or --private-key=… ; all work'],
    ['--public-key <key>', 'the public key uploaded to the platform'],
    ['--key-version <v>', 'the key_version the requests send'],
    ['--platform-public-key <key>', 'the platform public key of the mini-program'],
    ['--body-file <f>, --body <text>', 'a body to check for stability'],
    ['--method <M>, --url <u>', 'a request to check the string to sign of'],
    ['--authorization <value>', 'the header that request sent'],
    ['--json', 'print one JSON object on stdout (see docs/cli.md)'],
  ],
  examples: [
    ['doctor --private-key app_private_key.pem --public-key app_public_key.pem --key-version 1', 'check a key pair'],
    ['doctor --private-key "$APP_PRIVATE_KEY" --json', 'as JSON, for CI'],
  ],
  json: `{ "ok": boolean,   // false when a check failed (exit 1)
  "checks": [{ "status": "pass" | "fail" | "warn", "title": string, "detail": string | null }] }`,
  pages: ['signing.md', 'cli.md'],
};

const MARK = { pass: '✓', fail: '✗', warn: '!' } as const;

/** The project's `node_modules/.bin/node` against the Node running cloudfn; undefined when there is none. */
function projectNodeCheck(): { status: 'pass' | 'fail'; title: string; detail?: string } | undefined {
  const problem = projectNodeProblem(process.cwd(), process.execPath, process.version);
  if (problem !== undefined)
    return {
      status: 'fail',
      title: "the project's node_modules/.bin/node is the Node running cloudfn",
      detail: problem.message,
    };
  return undefined;
}

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
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    process.stdout.write(formatHelp(HELP) + '\n');
    return 0;
  }
  const project = projectNodeCheck();
  // Said even when the signing checks cannot run for want of a key.
  if (project?.status === 'fail' && values['private-key'] === undefined && values.json !== true)
    process.stdout.write(`${MARK.fail} ${project.title}: ${project.detail}\n`);
  const body = readBodyOption(values['body-file'], values.body);
  const signing = libraryCall(() =>
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
  const checks = [...(project === undefined ? [] : [project]), ...signing];
  const failed = checks.some((c) => c.status === 'fail');
  if (values.json === true) {
    const rows = checks.map(({ status, title, detail }) => ({ status, title, detail: detail ?? null }));
    return printJson({ ok: !failed, checks: rows }, failed ? 1 : 0);
  }
  for (const check of checks) {
    const detail = check.detail === undefined ? '' : `: ${check.detail}`;
    process.stdout.write(`${MARK[check.status]} ${check.title}${detail}\n`);
  }
  return failed ? 1 : 0;
}
