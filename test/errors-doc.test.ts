/**
 * Every code of every error table has an anchor in docs/errors.md (CONTRIBUTING.md, Style: one error table per area).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runtimeErrors } from '../runtime/all-errors.js';
import { appErrors } from '../src/app/errors.js';
import { buildErrors } from '../src/build/errors.js';
import { cloudCodes } from '../src/client/cloud-failure.js';
import { clientErrors } from '../src/client/errors.js';
import { componentErrors } from '../src/platform/components/errors.js';
import { devErrors } from '../src/dev/errors.js';
import { fleetErrors } from '../src/fleet/errors.js';
import { mediaErrors } from '../src/media/errors.js';
import { platformErrors } from '../src/platform/errors.js';
import { scheduleErrors } from '../src/schedule/errors.js';
import { serviceErrors } from '../src/platform/services/errors.js';
import { signErrors } from '../src/sign/errors.js';
import { storageErrors } from '../src/platform/storage/errors.js';

const doc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
// Codes are upper snake case (cloudfn's), or TOS's own in upper camel case (NoSuchKey).
const headings = new Set([...doc.matchAll(/^### ([A-Za-z0-9_]+)\s*$/gm)].map((m) => m[1]));

const tables: Record<string, Readonly<Record<string, { status: number }>>> = {
  runtime: runtimeErrors,
  sign: signErrors,
  media: mediaErrors,
  platform: platformErrors,
  dev: devErrors,
  build: buildErrors,
  client: clientErrors,
  cloud: cloudCodes,
  fleet: fleetErrors,
  schedule: scheduleErrors,
  components: componentErrors,
  services: serviceErrors,
  app: appErrors,
  storage: storageErrors,
};

describe('docs/errors.md', () => {
  for (const [name, table] of Object.entries(tables)) {
    it(`documents every ${name} error code`, () => {
      const codes = Object.keys(table);
      expect(codes.length).toBeGreaterThan(0);
      expect(codes.filter((code) => !headings.has(code))).toEqual([]);
    });
  }

  it('documents no code that no table has (except the HttpError code)', () => {
    const known = new Set(Object.values(tables).flatMap((t) => Object.keys(t)));
    known.add('CLOUDFN_HTTP_ERROR');
    expect([...headings].filter((code) => !known.has(code!))).toEqual([]);
  });

  it('gives every runtime code an HTTP status the issue allows', () => {
    for (const spec of Object.values(runtimeErrors))
      expect([400, 404, 405, 408, 413, 415, 431, 500, 503, 504]).toContain(spec.status);
  });
});
