/**
 * The function service's adapter (runtime/function-service/adapter.ts) leaves nothing per call
 * that outlives the young generation: after 100,000 calls whose handler logs through
 * `service.info`, V8 has not grown the young generation past its first sizes
 * (helpers/young-generation.ts). Its five log methods were arrow functions made per call and
 * kept on the service, the pattern that grew `cloudfn start`'s young generation under load.
 */
import { join } from 'node:path';
import { ROOT, youngGenerationSuite } from './helpers/young-generation.js';

const ADAPTER = join(ROOT, 'dist/runtime/function-service/adapter.js');

/** One platform call: a context as the platform passes it, the handler logging once through it. */
const LOOP = `
  const { functionServiceHandler } = await import(${JSON.stringify(ADAPTER)});
  let logged = 0;
  const handler = functionServiceHandler((params, service) => { service.info('x'); return 1; }, 'f');
  const noop = () => undefined;
  function one() {
    const context = {
      headers: {}, httpMethod: 'GET', path: '/', url: '/', query: {}, cookies: {}, trigger: 'http',
      set: noop, remove: noop, setCookie: noop, clearCookie: noop, status: noop,
      log: noop, debug: noop, warn: noop, error: noop,
      info(value) { if (value === 'x') logged++; },
    };
    return handler({}, context);
  }
  process.on('exit', () => { if (logged !== 100000) throw new Error('logged ' + logged + ' lines'); });`;

// 2 MB bound (Node 22.23, 24.22, 26.12); 32 MB on 24.22 with arrow functions.
youngGenerationSuite({
  built: ADAPTER,
  subject: "the function service's log methods",
  title: 'logs from 100,000 calls without growing the young generation past 6 MB',
  loop: LOOP,
});
