/** The public surface of cloudfn/testing is chosen on purpose. */
import { expect, it } from 'vitest';
import * as testing from '../../src/testing/index.js';

it('cloudfn/testing exports exactly this list', () => {
  expect(Object.keys(testing).sort()).toEqual(['createFakeService', 'invoke', 'parseSetCookies']);
});
