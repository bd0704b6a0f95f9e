/**
 * `cloudfn keys generate|convert|inspect`: make an app key pair, change a key's encoding,
 * and say what a key is and what is wrong with it.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportKey, generateKeyPair, inspectKey, type KeyEncoding } from '../sign/index.js';
import { OptionsError, parseCommandArgs, required } from './args.js';
import { type CommandHelp, formatHelp } from './help.js';
import { printJson } from './json.js';
import { libraryCall } from './sign.js';

export const HELP: CommandHelp = {
  name: 'keys',
  usage: [
    'keys generate [--out-dir d] [--pkcs1] [--force] [--json]',
    'keys convert --in k.pem --to pkcs1|pkcs8|spki [--out f] [--json]',
    'keys inspect k.pem [--json]',
  ],
  description: `generate  writes app_private_key.pem (PKCS8, or PKCS1 with --pkcs1) and app_public_key.pem
          (SPKI, the text to upload)
convert   prints the key in another encoding (spki gives the public key of a private key)
inspect   prints kind, encoding, bits, fingerprint and what is wrong; exit 1 when something is`,
  options: [
    ['--out-dir <dir>', 'generate: where the two files go (default .)'],
    ['--pkcs1', 'generate: write the private key as PKCS1 (RSA PRIVATE KEY)'],
    ['--force', 'generate: replace existing files'],
    ['--in <file>', 'convert: the key to read'],
    ['--to <encoding>', 'convert: pkcs1, pkcs8 or spki'],
    ['--out <file>', 'convert: write there instead of stdout'],
    ['--json', 'print one JSON object on stdout (see docs/cli.md)'],
  ],
  examples: [
    ['keys generate --out-dir keys', 'a new app key pair in ./keys'],
    ['keys convert --in app_private_key.pem --to spki', 'the public key of a private key'],
    ['keys inspect app_private_key.pem --json', 'what the key is, as JSON'],
  ],
  json: `generate: { "privateKey": string, "publicKey": string, "encoding": "pkcs8" | "pkcs1", "fingerprint": string }
convert:  { "encoding": "pkcs1" | "pkcs8" | "spki", "pem": string, "out": string | null }
inspect:  { "ok": boolean, "kind": "private" | "public" | null, "encoding": string | null,
            "format": "pem" | "der" | "base64" | null, "type": string | null, "bits": number | null,
            "fingerprint": string | null, "problems": string[], "notes": string[] }`,
  pages: ['signing.md', 'cli.md'],
};

/** Runs `cloudfn keys`. */
export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  // `cloudfn keys generate --help` is the command's help too, not an unknown flag.
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(formatHelp(HELP) + '\n');
    return 0;
  }
  if (sub === 'generate') return generate(rest);
  if (sub === 'convert') return convert(rest);
  if (sub === 'inspect') return inspect(rest);
  if (sub === undefined || sub === '--help' || sub === '-h') {
    process.stdout.write(formatHelp(HELP) + '\n');
    return sub === undefined ? 1 : 0;
  }
  throw new OptionsError(`unknown keys command ${JSON.stringify(sub)}; use generate, convert or inspect`);
}

function generate(argv: string[]): number {
  const { values } = parseCommandArgs(argv, {
    'out-dir': { type: 'string' },
    pkcs1: { type: 'boolean' },
    force: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  const dir = values['out-dir'] ?? '.';
  const privatePath = join(dir, 'app_private_key.pem');
  const publicPath = join(dir, 'app_public_key.pem');
  for (const path of [privatePath, publicPath]) {
    if (existsSync(path) && values.force !== true)
      throw new OptionsError(`${path} exists; keep it, choose another --out-dir, or pass --force to replace it`);
  }
  const pair = generateKeyPair({ pkcs1: values.pkcs1 === true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(privatePath, pair.privateKeyPem, { mode: 0o600 });
  writeFileSync(publicPath, pair.publicKeyPem, { mode: 0o644 });
  if (values.json === true) {
    const encoding = values.pkcs1 === true ? 'pkcs1' : 'pkcs8';
    return printJson({ privateKey: privatePath, publicKey: publicPath, encoding, fingerprint: pair.fingerprint }, 0);
  }
  process.stdout.write(
    [
      `private key: ${privatePath} (${values.pkcs1 === true ? 'PKCS1, RSA PRIVATE KEY' : 'PKCS8, PRIVATE KEY'}; keep it secret, never commit it)`,
      `public key:  ${publicPath} (SPKI, PUBLIC KEY)`,
      `fingerprint: ${pair.fingerprint}`,
      `next: upload the whole text of ${publicPath}, BEGIN to END line, under "add app public key" on the key settings page, and note its key_version`,
    ].join('\n') + '\n',
  );
  return 0;
}

function convert(argv: string[]): number {
  const { values, positionals } = parseCommandArgs(argv, {
    in: { type: 'string' },
    to: { type: 'string' },
    out: { type: 'string' },
    json: { type: 'boolean' },
  });
  const input = values.in ?? positionals[0];
  const to = required(values.to, 'to', 'pkcs8');
  if (to !== 'pkcs1' && to !== 'pkcs8' && to !== 'spki')
    throw new OptionsError(`--to must be pkcs1, pkcs8 or spki, got ${JSON.stringify(to)}`);
  const pem = libraryCall(() => exportKey(required(input, 'in', 'app_private_key.pem'), to as KeyEncoding));
  if (values.out !== undefined) writeFileSync(values.out, pem, { mode: to === 'spki' ? 0o644 : 0o600 });
  if (values.json === true) return printJson({ encoding: to, pem, out: values.out ?? null }, 0);
  if (values.out === undefined) {
    process.stdout.write(pem);
  } else {
    process.stderr.write(`wrote ${values.out}\n`);
  }
  return 0;
}

function inspect(argv: string[]): number {
  const { values, positionals } = parseCommandArgs(argv, { in: { type: 'string' }, json: { type: 'boolean' } });
  const file = values.in ?? positionals[0];
  if (file === undefined) throw new OptionsError('give the key file: cloudfn keys inspect app_private_key.pem');
  if (!existsSync(file)) throw new OptionsError(`${file} does not exist`);
  const report = inspectKey(file);
  if (values.json === true) {
    const { ok, kind, encoding, format, type, bits, fingerprint, problems, notes } = report;
    const shape = { ok, kind, encoding, format, type, bits, fingerprint, problems, notes };
    return printJson(Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v ?? null])), report.ok ? 0 : 1);
  }
  const lines = [
    `kind:        ${report.kind ?? 'unknown'}`,
    `encoding:    ${report.encoding ?? 'unknown'} (${report.format ?? 'unreadable'})`,
    `type:        ${report.type ?? 'unknown'}${report.bits === undefined ? '' : `, ${report.bits} bits`}`,
    `fingerprint: ${report.fingerprint ?? '-'}`,
    ...report.problems.map((p) => `✗ ${p}`),
    ...report.notes.map((n) => `· ${n}`),
    report.ok ? '✓ usable for SHA256-RSA2048' : '✗ not usable as is',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  return report.ok ? 0 : 1;
}
