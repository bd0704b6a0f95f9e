/**
 * package.json as published: `engines` refuses the Node versions where cloudfn cannot load, the
 * templates ask for the same and run on a maintained LTS image, `typesVersions` covers every
 * subpath for `moduleResolution: node10`, and the optional peers are optional.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { satisfies } from 'semver';
import { describe, expect, it } from 'vitest';
import { REPO } from './testing/ensure-dist.js';

const read = (path: string) => JSON.parse(readFileSync(join(REPO, path), 'utf8')) as Record<string, any>;
const manifest = read('package.json');

describe('package.json', () => {
  it('admits 20.19+ and 22.12+, and refuses the versions without getBuiltinModule or require(esm)', () => {
    const range = manifest['engines'].node as string;
    for (const version of ['20.19.0', '20.20.2', '22.12.0', '24.0.0', '26.0.0'])
      expect(satisfies(version, range), version).toBe(true);
    for (const version of ['20.15.0', '20.18.3', '21.7.3', '22.0.0', '22.2.0', '22.11.0'])
      expect(satisfies(version, range), version).toBe(false);
    for (const template of ['starter', 'media', 'callback'])
      expect(read(`templates/${template}/package.json`)['engines'].node).toBe(range);
  });

  it('builds the templates on a maintained LTS image', () => {
    for (const template of ['starter', 'media', 'callback']) {
      const froms = readFileSync(join(REPO, 'templates', template, 'Dockerfile'), 'utf8').match(/^FROM \S+/gm);
      expect(froms).toEqual(['FROM node:24-slim', 'FROM node:24-slim']);
    }
  });

  it('gives node10 resolution the types of every subpath, and ships the changelog', () => {
    const subpaths = Object.keys(manifest['exports']).filter((key) => key !== '.' && key !== './package.json');
    const mapped = manifest['typesVersions']['*'] as Record<string, string[]>;
    expect(Object.keys(mapped).map((key) => `./${key}`)).toEqual(subpaths);
    for (const subpath of subpaths) expect(mapped[subpath.slice(2)]).toEqual([manifest['exports'][subpath].types]);
    expect(manifest['types']).toBe(manifest['exports']['.'].types);
    expect(manifest['files']).toContain('CHANGELOG.md');
    expect(manifest['scripts']['prepare']).toBeUndefined();
  });

  it('declares prom-client, ioredis and @types/node as optional peers, not dependencies', () => {
    for (const name of ['prom-client', 'ioredis', '@types/node']) {
      expect(manifest['dependencies'][name]).toBeUndefined();
      expect(manifest['peerDependencies'][name]).toBeDefined();
      expect(manifest['peerDependenciesMeta'][name]).toEqual({ optional: true });
    }
  });
});
