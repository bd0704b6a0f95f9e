import { defineConfig } from 'vitest/config';

// `*.test.ts` files run; `*.test-d.ts` files are type tests: vitest runs tsc over them
// (test/tsconfig.type-tests.json) and a type assertion that does not hold fails its test.
export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/fixtures/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    typecheck: {
      enabled: true,
      include: ['test/**/*.test-d.ts'],
      tsconfig: 'test/tsconfig.type-tests.json',
    },
  },
});
