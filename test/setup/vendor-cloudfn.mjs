/**
 * A project made by `cloudfn init` gets this checkout of cloudfn as a packed tarball in its
 * `vendor/`, and its Dockerfile copies `vendor/` before `npm ci`: what `init` does when cloudfn's
 * version is not on the registry. The container test and the image-size bench build images of
 * such projects without a registry that has this cloudfn.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const LOCK_COPY = 'COPY package.json package-lock.json ./';

/**
 * Points `pkg`'s cloudfn dependency at `tgz`, copied into `dir/vendor/` (unless it already names a
 * `file:`), writes `pkg` to `dir/package.json`, and makes the Dockerfile copy `vendor/` first.
 * @example vendorCloudfn(dir, '/tmp/cloudfn-0.1.0.tgz', JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')))
 */
export function vendorCloudfn(dir, tgz, pkg, name = basename(tgz)) {
  if (!pkg.dependencies.cloudfn?.startsWith('file:')) {
    mkdirSync(join(dir, 'vendor'), { recursive: true });
    cpSync(tgz, join(dir, 'vendor', name));
    pkg.dependencies.cloudfn = `file:vendor/${name}`;
  }
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  const dockerfile = join(dir, 'Dockerfile');
  const text = readFileSync(dockerfile, 'utf8');
  if (!text.includes('COPY vendor'))
    writeFileSync(dockerfile, text.replace(LOCK_COPY, `${LOCK_COPY}\nCOPY vendor ./vendor`));
}
