/**
 * The independent implementation the signing tests compare against: keys made and data signed
 * by the openssl CLI, in a temp dir made per run and removed after.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const OPENSSL = '/usr/bin/openssl';

function openssl(args: string[], input?: Buffer): Buffer {
  return execFileSync(OPENSSL, args, { input, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** The keys of one run, as files and texts. */
export interface OpensslKeys {
  dir: string;
  /** `RSA PRIVATE KEY` (PKCS1). */
  pkcs1: string;
  /** The same key as `PRIVATE KEY` (PKCS8). */
  pkcs8: string;
  /** Its public half as `PUBLIC KEY` (SPKI). */
  spki: string;
  /** Its public half as `RSA PUBLIC KEY` (PKCS1). */
  rsaPublic: string;
  /** The private key as PKCS8 DER bytes. */
  der: Buffer;
  /** The private key as PKCS1 DER bytes. */
  derPkcs1: Buffer;
  /** The public key as SPKI DER bytes. */
  publicDer: Buffer;
  path: { pkcs1: string; pkcs8: string; spki: string };
  /** openssl's SHA-256 of the SPKI DER, hex. */
  fingerprint: string;
  /** Signs bytes with `openssl dgst -sha256 -sign` and gives base64. */
  sign(data: string | Buffer, keyPath?: string): string;
  cleanup(): void;
}

/** Generates a 2048-bit RSA key with `openssl genrsa -traditional` and derives every encoding. */
export function opensslKeys(): OpensslKeys {
  const dir = mkdtempSync(join(tmpdir(), 'cloudfn-sign-'));
  const path = { pkcs1: join(dir, 'pkcs1.pem'), pkcs8: join(dir, 'pkcs8.pem'), spki: join(dir, 'spki.pem') };
  openssl(['genrsa', '-traditional', '-out', path.pkcs1, '2048']);
  openssl(['pkey', '-in', path.pkcs1, '-out', path.pkcs8]);
  openssl(['rsa', '-in', path.pkcs1, '-pubout', '-out', path.spki]);
  const rsaPublic = openssl(['rsa', '-in', path.pkcs1, '-RSAPublicKey_out']).toString();
  const der = openssl(['pkcs8', '-topk8', '-nocrypt', '-in', path.pkcs1, '-outform', 'DER']);
  // openssl pkey writes RSA DER in the traditional PKCS1 form.
  const derPkcs1 = openssl(['pkey', '-in', path.pkcs1, '-outform', 'DER']);
  const publicDer = openssl(['pkey', '-in', path.pkcs1, '-pubout', '-outform', 'DER']);
  const fingerprint = openssl(['dgst', '-sha256', '-r'], publicDer).toString().split(' ')[0]!;
  let counter = 0;
  return {
    dir,
    pkcs1: readFileSync(path.pkcs1, 'utf8'),
    pkcs8: readFileSync(path.pkcs8, 'utf8'),
    spki: readFileSync(path.spki, 'utf8'),
    rsaPublic,
    der,
    derPkcs1,
    publicDer,
    path,
    fingerprint,
    sign(data, keyPath = path.pkcs1) {
      const file = join(dir, `data-${counter++}.bin`);
      writeFileSync(file, data);
      return openssl(['dgst', '-sha256', '-sign', keyPath, file]).toString('base64');
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Other keys the scheme must refuse, made by openssl: 1024-bit RSA, EC P-256, RSA-PSS, 4096-bit RSA. */
export function refusedKeys(dir: string): { rsa1024: string; ec: string; pss: string; ed25519: string } {
  const gen = (name: string, args: string[]) => {
    const file = join(dir, name);
    openssl([args[0]!, '-out', file, ...args.slice(1)]);
    return readFileSync(file, 'utf8');
  };
  return {
    rsa1024: gen('rsa1024.pem', ['genrsa', '1024']),
    ec: gen('ec.pem', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256']),
    pss: gen('pss.pem', ['genpkey', '-algorithm', 'RSA-PSS', '-pkeyopt', 'rsa_keygen_bits:2048']),
    ed25519: gen('ed25519.pem', ['genpkey', '-algorithm', 'ED25519']),
  };
}
