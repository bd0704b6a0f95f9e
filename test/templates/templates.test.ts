/**
 * The templates are real projects: each has what `cloudfn init` promises, its deploy files say
 * the same thing in every template, and each builds into bundles that start and answer their
 * health path. (test/e2e/init.test.ts installs them and runs their own tests.)
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discoverFunctions } from '../../runtime/serve/discover.js';
import { DEFAULT_HEALTH_PATH, resolveOptions } from '../../runtime/options.js';
import { buildProject, checkBundle } from '../../src/build/index.js';
import { listTemplates, templatesDir } from '../../src/init/scaffold.js';

const root = templatesDir();
const templates = listTemplates();
const read = (template: string, file: string): string => readFileSync(join(root, template, file), 'utf8');
const out = mkdtempSync(join(tmpdir(), 'cloudfn-templates-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('templates', () => {
  it('are starter, media, callback, live-room and service', () => {
    expect(templates).toEqual(['callback', 'live-room', 'media', 'service', 'starter']);
  });

  describe.each(templates)('%s', (template) => {
    it('is a project: package.json depending on cloudfn, tsconfig, functions, vitest tests with cloudfn/testing, README', () => {
      const pkg = JSON.parse(read(template, 'package.json')) as {
        name: string;
        type: string;
        scripts: Record<string, string>;
        dependencies: Record<string, string>;
        devDependencies: Record<string, string>;
      };
      expect(pkg.name).toBe(`cloudfn-${template}`);
      expect(pkg.type).toBe('module');
      // ioredis: the image a fleet runs carries the Redis client (docs/decisions.md).
      // zod: the starter and media templates declare their params (docs/contracts.md).
      expect(pkg.dependencies).toEqual({
        cloudfn: '^0.1.0',
        ioredis: '^6.0.0',
        ...(['callback', 'live-room', 'service'].includes(template) ? {} : { zod: '^4.0.0' }),
      });
      expect(Object.keys(pkg.devDependencies).sort()).toEqual(['@types/node', 'typescript', 'vitest']);
      expect(pkg.scripts).toMatchObject({
        dev: 'cloudfn dev',
        start: 'cloudfn start',
        build: 'cloudfn build',
        test: 'vitest run',
        typecheck: 'tsc --noEmit',
      });
      expect(JSON.parse(read(template, 'tsconfig.json'))).toMatchObject({
        compilerOptions: { strict: true, module: 'NodeNext', noEmit: true },
      });
      expect(discoverFunctions(join(root, template)).length).toBeGreaterThan(0);
      const tests = readdirSync(join(root, template, 'test')).filter((f) => f.endsWith('.test.ts'));
      expect(tests.length).toBeGreaterThan(0);
      expect(tests.some((f) => read(template, join('test', f)).includes("from 'cloudfn/testing'"))).toBe(true);
      expect(tests.every((f) => read(template, join('test', f)).includes("from 'vitest'"))).toBe(true);
      expect(read(template, 'README.md')).toMatch(/^# cloudfn-/);
      for (const file of ['gitignore', '.dockerignore', '.env.example', 'Dockerfile', 'deploy/knative-service.yaml'])
        expect(existsSync(join(root, template, file)), file).toBe(true);
      // npm leaves .gitignore files out of packages; init renames `gitignore`.
      expect(existsSync(join(root, template, '.gitignore'))).toBe(false);
    });

    it('ships the same Dockerfile and Knative Service as the others, using the health path', () => {
      expect(read(template, 'Dockerfile')).toBe(read('starter', 'Dockerfile'));
      expect(read(template, '.dockerignore')).toBe(read('starter', '.dockerignore'));
      expect(read(template, '.vscode/launch.json')).toBe(read('starter', '.vscode/launch.json'));
      expect(read(template, 'deploy/probe.mjs')).toBe(read('starter', 'deploy/probe.mjs'));
      for (const file of ['deploy/knative-service.yaml', 'deploy/kubernetes.yaml'])
        expect(read(template, file).replaceAll(`cloudfn-${template}`, 'NAME'), file).toBe(
          read('starter', file).replaceAll('cloudfn-starter', 'NAME'),
        );
    });

    it('builds into bundles that start and answer the health path', async () => {
      const result = await buildProject(join(root, template), { outdir: join(out, template), minify: true });
      expect(result.warnings).toEqual([]);
      const checks = await Promise.all(result.bundles.map((b) => checkBundle(b.file, { chunks: b.chunks })));
      expect(checks.filter((c) => !c.ok)).toEqual([]);
    }, 60_000);
  });

  it('the Dockerfile builds with --check and runs dist/server.mjs with source maps and a health check', () => {
    const docker = read('starter', 'Dockerfile');
    expect(docker).toContain('RUN npx cloudfn build --minify --check');
    // vendor/ (cloudfn packed by init when it is not on the registry) is there before npm ci.
    expect(docker.indexOf('COPY vendor ./vendor')).toBeGreaterThan(
      docker.indexOf('COPY package.json package-lock.json ./'),
    );
    expect(docker.indexOf('COPY vendor ./vendor')).toBeLessThan(docker.indexOf('RUN npm ci'));
    expect(docker).toContain('CMD ["node", "--max-semi-space-size=16", "dist/server.mjs"]');
    // The run stage carries what server.mjs runs, not every per-function bundle of dist/.
    expect(docker).toContain('COPY --from=build /app/dist/server.mjs /app/dist/server.mjs.map ./dist/');
    expect(docker).toContain('COPY --from=build /app/dist/_chunks ./dist/_chunks');
    expect(docker).not.toContain('COPY --from=build /app/dist ./dist');
    expect(docker).toContain('NODE_OPTIONS=--enable-source-maps');
    expect(docker).toContain(`HEALTHCHECK`);
    expect(docker).toContain(DEFAULT_HEALTH_PATH);
    const knative = read('starter', 'deploy/knative-service.yaml');
    expect(knative).toContain('apiVersion: serving.knative.dev/v1');
    expect(knative.match(new RegExp(`path: ${DEFAULT_HEALTH_PATH}`, 'g'))).toHaveLength(2);
    // The platform's container services require port 8000.
    expect(docker).toContain('PORT=8000');
    expect(docker).toContain('EXPOSE 8000');
    expect(knative).toContain('containerPort: 8000');
    // Knative probes aggressively at start only when readinessProbe.periodSeconds is 0 (unset).
    const readiness = knative.slice(knative.indexOf('readinessProbe:'), knative.indexOf('livenessProbe:'));
    expect(readiness).not.toContain('periodSeconds');
  });

  it('ships a Kubernetes Deployment whose probes need nothing in the image and whose grace period covers the drain', () => {
    const kube = read('starter', 'deploy/kubernetes.yaml');
    expect(kube).toContain('kind: Deployment');
    expect(kube).toContain('kind: Service');
    expect(kube).toContain('containerPort: 8000');
    // The image has no curl: an HTTP readiness probe (the kubelet sends it) and a liveness
    // probe run with node, since podman kube play runs httpGet liveness probes with curl.
    const fields = kube
      .split('\n')
      .filter((line) => !line.trim().startsWith('#'))
      .join('\n');
    expect(fields).not.toContain('curl');
    expect(kube).toMatch(/readinessProbe:\n\s+httpGet:\n\s+path: \/v1\/ping/);
    expect(kube).toContain('livenessProbe:\n            exec:\n              command: ["node", "deploy/probe.mjs"]');
    expect(read('starter', 'Dockerfile')).toContain('COPY --from=build /app/deploy/probe.mjs ./deploy/probe.mjs');
    expect(read('starter', 'deploy/probe.mjs')).toContain(
      'process.exit(res.status === 200 || res.status === 503 ? 0 : 1)',
    );
    const env = (name: string): string | undefined => new RegExp(`name: ${name}\\n\\s+value: "(\\d+)"`).exec(kube)?.[1];
    const options = resolveOptions({
      env: {
        CLOUDFN_DRAIN_DELAY: env('CLOUDFN_DRAIN_DELAY'),
        CLOUDFN_SHUTDOWN_TIMEOUT: env('CLOUDFN_SHUTDOWN_TIMEOUT'),
      },
    });
    const grace = Number(/terminationGracePeriodSeconds: (\d+)/.exec(kube)?.[1]);
    expect(grace * 1000).toBeGreaterThan(options.drainDelay + options.shutdownTimeout);
    // A draining pod (health 503) must not be restarted by its liveness probe before it exits.
    const liveness = kube.slice(kube.indexOf('livenessProbe:'));
    const period = Number(/periodSeconds: (\d+)/.exec(liveness)?.[1]);
    const failures = Number(/failureThreshold: (\d+)/.exec(liveness)?.[1]);
    expect(period * failures * 1000).toBeGreaterThan(options.drainDelay + options.shutdownTimeout);
  });

  it('carries a VS Code launch.json to debug cloudfn dev and the tests at TypeScript lines', () => {
    const launch = JSON.parse(read('starter', '.vscode/launch.json')) as {
      configurations: { name: string; request: string; program?: string; args?: string[]; port?: number }[];
    };
    expect(launch.configurations.map((c) => [c.name, c.request])).toEqual([
      ['cloudfn dev', 'launch'],
      ['vitest: this file', 'launch'],
      ['attach to cloudfn dev --inspect', 'attach'],
    ]);
    expect(launch.configurations[0]).toMatchObject({
      program: '${workspaceFolder}/node_modules/cloudfn/dist/src/cli/index.js',
      args: ['dev'],
    });
    expect(launch.configurations[1]).toMatchObject({
      program: '${workspaceFolder}/node_modules/vitest/vitest.mjs',
      args: ['run', '${relativeFile}'],
    });
    expect(launch.configurations[2]).toMatchObject({ port: 9229 });
  });

  it('starter has hello, a multipart upload and a media function; media uses createMediaClient; callback verifies signed callbacks', () => {
    expect(discoverFunctions(join(root, 'starter')).map((f) => f.name)).toEqual([
      'hello',
      'media-tour',
      'upload',
      'videos',
    ]);
    expect(read('starter', 'functions/upload.ts')).toContain('multipart/form-data');
    expect(read('starter', 'functions/videos.ts')).toContain(
      "import { createMediaClient, MediaError, type MediaClient } from 'cloudfn/media'",
    );
    expect(read('media', 'functions/_media.ts')).toMatch(/createMediaClient\(\)/);
    expect(discoverFunctions(join(root, 'media')).map((f) => f.name)).toEqual([
      'videos/job',
      'videos/list',
      'videos/play',
      'videos/upload',
    ]);
    // live-room: the platform's live-room flow, with its timer.
    expect(discoverFunctions(join(root, 'live-room')).map((f) => f.name)).toEqual([
      'finish_game',
      'live_data_callback',
      'settle',
      'start_game',
      'websocket_callback',
    ]);
    expect(read('live-room', 'functions/settle.ts')).toContain('schedule:');
    expect(read('callback', 'functions/callback.ts')).toContain(
      'await verifyServiceCallback(service, { publicKey: platformPublicKey() })',
    );
  });
});
