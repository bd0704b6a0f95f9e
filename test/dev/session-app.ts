/**
 * A two-service app for tests of `cloudfn dev game profile`, run as users run it: the built
 * CLI's session (dist/), each folder its own `cloudfn dev` process. game enables profile and a
 * third service the session lacks (billing) in `innerCall`; both give components by URL (nothing
 * is started: the test reads the variables and what the console shows of them).
 */
import { PassThrough } from 'node:stream';
import type { DevSession, startDevSession as StartDevSession } from '../../src/dev/session.js';
import { ensureDist, REPO } from '../testing/ensure-dist.js';
import { tempProject, type TempProject } from '../testing/project.js';
import { until } from '../testing/until.js';

/** A running app and what its session printed. */
export interface SessionApp {
  project: TempProject;
  session: DevSession;
  /** Every line the session and its services printed so far. */
  output(): string;
  /** The base URL of a service by id. */
  url(id: string): string;
  stop(): Promise<void>;
}

/** The components game's config gives by URL. */
export const GAME_COMPONENTS = {
  redis: 'redis://cloudfn:s3cret@127.0.0.1:6390',
  mysql: 'mysql://app:pw@127.0.0.1:3307',
};

/**
 * Writes game/ and profile/ into a temporary folder and starts their session on free ports;
 * resolves once both answer.
 * @example const app = await startSessionApp(); ... await app.stop();
 */
export async function startSessionApp(): Promise<SessionApp> {
  ensureDist();
  const { startDevSession } = (await import(`${REPO}/dist/src/dev/session.js`)) as {
    startDevSession: typeof StartDevSession;
  };
  const env = 'export default () => ({ cloudEnv: process.env.CLOUD_ENV, serviceId: process.env.SERVICE_ID });\n';
  const project = tempProject({
    'game/cloudfn.config.json': JSON.stringify({
      serviceId: 'game',
      innerCall: ['profile', 'billing'],
      components: GAME_COMPONENTS,
    }),
    'game/functions/env.ts': env,
    'profile/cloudfn.config.json': JSON.stringify({ serviceId: 'profile' }),
    'profile/functions/env.ts': env,
  });
  let text = '';
  const out = new PassThrough();
  out.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const session = await startDevSession({
    roots: [`${project.root}/game`, `${project.root}/profile`],
    port: 0,
    args: ['--no-typecheck'],
    out,
  });
  const url = (id: string): string => {
    const found = session.services.find((service) => service.id === id);
    if (found === undefined) throw new Error(`no service ${id} in the session`);
    return found.url;
  };
  for (const service of session.services)
    await until(
      async () => ((await fetch(`${service.url}/_cloudfn/api/services`).catch(() => undefined))?.ok ? true : undefined),
      30_000,
      () => `${service.id} to answer; the session printed:\n${text}`,
    );
  return {
    project,
    session,
    output: () => text,
    url,
    stop: async () => {
      await session.close();
      project.remove();
    },
  };
}
