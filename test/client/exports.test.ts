/** The public surface of cloudfn/client is chosen on purpose. */
import { expect, it } from 'vitest';
import * as client from '../../src/client/index.js';

it('cloudfn/client exports exactly this list', () => {
  expect(Object.keys(client).sort()).toEqual([
    'ContainerCallError',
    'TRIGGER_HEADER',
    'callContainer',
    'clientErrors',
    'createContainerClient',
  ]);
});
