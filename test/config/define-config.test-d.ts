/**
 * `defineConfig`'s types: exact, so a misspelt key is a type error. A type test (vitest's
 * typecheck): tsc checks it, and an assertion that does not hold, or a `@ts-expect-error` line
 * that compiles, fails its case.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { type CloudfnConfig, defineConfig } from '../../src/index.js';

describe('defineConfig', () => {
  it('returns the config as given, with its literal types', () => {
    const config = defineConfig({ port: 3000, healthPath: 'off', limits: { maxBodySize: 1024 } });
    expectTypeOf(config.port).toEqualTypeOf<3000>();
  });

  it('rejects unknown and mistyped keys at compile time', () => {
    // @ts-expect-error prot is not an option (port is)
    defineConfig({ prot: 8000 });
    // @ts-expect-error a limit's name misspelt
    defineConfig({ limits: { maxBodySise: 1 } });
    // @ts-expect-error port is a number
    defineConfig({ port: '8000' });
    // @ts-expect-error protoAction is 'error' or 'remove'
    defineConfig({ protoAction: 'strip' });
    // @ts-expect-error exposeErrors is for cloudfn dev only, not a config file
    defineConfig({ exposeErrors: true });
    const fromElsewhere = { port: 1, colour: 'red' };
    // @ts-expect-error exact: extra keys of a variable are refused too, not only of a literal
    defineConfig(fromElsewhere);
  });

  it('types the options from the option table', () => {
    expectTypeOf<CloudfnConfig['port']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<CloudfnConfig['healthPath']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<CloudfnConfig['protoAction']>().toEqualTypeOf<'error' | 'remove' | undefined>();
  });
});
