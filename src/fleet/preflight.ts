/**
 * The start-up check of a process that may serve a fleet: with a Redis setting in its
 * environment, the Redis client must load, or the process refuses to start with one line
 * (`cloudfn start`, every bundle's entry, and so `cloudfn build --check`). Without the check,
 * the first signed request would answer 500 and the media client would quietly stop sharing.
 * Without a setting it reads two variables and loads nothing. A bundle's entry makes that check
 * itself (setting-given.ts) and imports this module only when a setting is given.
 */
import { createFleetError, FleetError } from './errors.js';
import { redisSettingGiven, resolveRedisSettings, type RedisSettings } from './settings.js';

/**
 * Resolves with the FLEET_NO_CLIENT error when `env` sets Redis and the client cannot load;
 * undefined otherwise. A bad setting (FLEET_BAD_SETTING) is returned too: it would fail later.
 * @example const problem = await checkRedisClient(process.env)
 */
export async function checkRedisClient(env: NodeJS.ProcessEnv = process.env): Promise<FleetError | undefined> {
  if (!redisSettingGiven(undefined, env)) return undefined;
  let settings: RedisSettings | undefined;
  try {
    settings = resolveRedisSettings({ env });
  } catch (error) {
    return error as FleetError;
  }
  if (settings === undefined || settings.client !== undefined) return undefined;
  try {
    // The module itself is a chunk of a bundle: a folder copied without it fails here.
    const { loadRedisClientModule } = await import('./client-module.js');
    await loadRedisClientModule(settings.source);
    return undefined;
  } catch (error) {
    if (error instanceof FleetError) return error;
    return createFleetError('FLEET_NO_CLIENT', settings.source, (error as Error).message.split('\n')[0] ?? 'not found');
  }
}

/**
 * Exits 1 with `cloudfn: CODE: message` on stderr (the line of every start-up failure) when
 * `checkRedisClient` finds a problem. Called before the port opens.
 * @example await refuseWithoutRedisClient()
 */
export async function refuseWithoutRedisClient(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const problem = await checkRedisClient(env);
  if (problem === undefined) return;
  process.stderr.write(`cloudfn: ${problem.code}: ${problem.message}\n`);
  process.exit(1);
}
