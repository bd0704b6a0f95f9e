/**
 * `cloudfn openapi`: the document of a project whose functions declare params with zod 4,
 * valibot 1 and arktype 2 (and one without), checked by an OpenAPI 3.1 validator, and its
 * operations read back: query parameters, request bodies, results, the error body's issues.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '@readme/openapi-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { type OpenApiDocument, openApiDocument } from '../../src/contract/openapi.js';
import { loadContractProject } from '../../src/contract/project.js';
import { REPO, ensureDist } from '../testing/ensure-dist.js';

const ROOT = join(REPO, 'test/fixtures/contract');
let doc: OpenApiDocument;

type Operation = {
  parameters?: { name: string; required: boolean; schema: Record<string, unknown> }[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { content: Record<string, { schema: Record<string, unknown> }> }>;
  summary: string;
};
const op = (path: string, method: 'get' | 'post') => (doc.paths[path] as Record<string, Operation>)[method]!;

beforeAll(async () => {
  const project = await loadContractProject(ROOT);
  doc = await openApiDocument(project.functions, { root: ROOT, title: project.title!, version: project.version! });
}, 60_000);

describe('cloudfn openapi', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(doc.info).toMatchObject({ title: 'contract-fixture', version: '1.2.3' });
  });

  it('has one operation per function and method', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(['/hello', '/media-tour', '/orders/create', '/videos/list']);
    for (const path of Object.keys(doc.paths)) expect(Object.keys(doc.paths[path] as object)).toEqual(['get', 'post']);
  });

  it('gives a GET its query parameters from the schema (zod 4: defaults, arktype 2: the text it parses)', () => {
    expect(op('/hello', 'get').parameters).toEqual([
      { name: 'name', in: 'query', required: false, schema: { type: 'string', minLength: 1, default: 'world' } },
      expect.objectContaining({ name: 'times', in: 'query', required: false }),
    ]);
    expect(op('/videos/list', 'get').parameters).toEqual([
      expect.objectContaining({ name: 'page', required: false, schema: expect.objectContaining({ type: 'string' }) }),
    ]);
  });

  it('gives a POST its body by content type, nested arrays included (valibot 1)', () => {
    const body = op('/orders/create', 'post').requestBody!.content;
    expect(Object.keys(body)).toEqual(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);
    expect(body['application/json']!.schema).toMatchObject({
      type: 'object',
      required: ['customer', 'items'],
      properties: { items: { type: 'array', items: { properties: { qty: { type: 'integer', minimum: 1 } } } } },
    });
  });

  it('gives the result from config.result, and every error its body with issues', () => {
    expect(op('/orders/create', 'post').responses['200']!.content['application/json']!.schema).toMatchObject({
      properties: { id: { type: 'string' }, total: { type: 'number' } },
    });
    expect(op('/orders/create', 'post').responses['400']!.content['application/json']!.schema).toEqual({
      $ref: '#/components/schemas/CloudfnError',
    });
    const error = (doc['components'] as { schemas: Record<string, { properties: { error: { properties: object } } }> })
      .schemas['CloudfnError']!;
    expect(Object.keys(error.properties.error.properties)).toEqual(['code', 'message', 'logid', 'issues']);
  });

  it('lists a function without a schema with what is known', () => {
    expect(op('/media-tour', 'get').summary).toBe('media-tour (params undeclared)');
    expect(Object.keys(op('/media-tour', 'post').requestBody!.content)).toContain('application/octet-stream');
  });

  it('is written beside the bundles by cloudfn build, and listed in its manifest', () => {
    ensureDist();
    const outdir = mkdtempSync(join(tmpdir(), 'cloudfn-openapi-build-'));
    try {
      const cli = join(REPO, 'dist/src/cli/index.js');
      const run = spawnSync(process.execPath, [cli, 'build', ROOT, '--outdir', outdir, '--no-typecheck', '--json'], {
        encoding: 'utf8',
      });
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).warnings).toEqual([]);
      expect(JSON.parse(readFileSync(join(outdir, 'openapi.json'), 'utf8'))).toEqual(doc);
      expect(JSON.parse(readFileSync(join(outdir, 'cloudfn-build.json'), 'utf8')).files).toContain('openapi.json');
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 120_000);

  it('is printed by the CLI', () => {
    ensureDist();
    const run = spawnSync(process.execPath, [join(REPO, 'dist/src/cli/index.js'), 'openapi', ROOT], {
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(doc);
  }, 60_000);
});

describe('a function whose module holds the process open when imported', () => {
  const HOLD = join(REPO, 'test/fixtures/contract-hold');
  it('does not keep cloudfn openapi, client or build from ending', () => {
    ensureDist();
    const cli = join(REPO, 'dist/src/cli/index.js');
    const outdir = mkdtempSync(join(tmpdir(), 'cloudfn-openapi-hold-'));
    try {
      for (const args of [
        ['openapi', HOLD],
        ['client', HOLD, '--out', join(outdir, 'api.ts')],
        ['build', HOLD, '--outdir', join(outdir, 'dist'), '--no-typecheck'],
      ]) {
        const run = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 60_000 });
        expect(run.signal, `${args[0]} was still running after 60 s`).toBeNull();
        expect(run.status, run.stderr).toBe(0);
      }
      expect(existsSync(join(outdir, 'dist', 'openapi.json'))).toBe(true);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, 180_000);
});
