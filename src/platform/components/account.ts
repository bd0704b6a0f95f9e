/**
 * A local component's account, kept in its folder (`account.json`) so that the data and the
 * credentials that open it survive a dev restart: a user name, a random password made once, and
 * the port used last time. The folder is made private to the user (0700).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Account {
  readonly user: string;
  readonly password: string;
  /** The port of the last start, tried first next time. */
  readonly port?: number;
}

/** The user name cloudfn's local servers create (the platform gives each app its own). */
export const LOCAL_USER = 'cloudfn';

/** The component's folder, made when missing, with its account (made on first use). */
export function readAccount(dir: string): Account {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const file = join(dir, 'account.json');
  if (existsSync(file)) {
    try {
      const account = JSON.parse(readFileSync(file, 'utf8')) as Account;
      if (typeof account.user === 'string' && typeof account.password === 'string') return account;
    } catch {
      // Unreadable: a new password would lock the data out, so say so rather than replace it.
      throw new Error(`${file} is not JSON; restore it, or delete the folder ${dir} to start with empty data`);
    }
  }
  const account: Account = { user: LOCAL_USER, password: randomBytes(12).toString('base64url') };
  writeAccount(dir, account);
  return account;
}

export function writeAccount(dir: string, account: Account): void {
  writeFileSync(join(dir, 'account.json'), `${JSON.stringify(account, null, 2)}\n`, { mode: 0o600 });
}
