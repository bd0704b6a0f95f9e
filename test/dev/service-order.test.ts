/**
 * The order of the local services (issue 51): it carries no meaning, and
 * `CLOUDFN_DEV_SERVICE_ORDER=reversed` runs them last first, which `npm run test:reversed` uses
 * to run the gateway, live, services and local-service suites; a value that is not an order is
 * refused in one line naming it.
 */
import { describe, expect, it } from 'vitest';
import { inServiceOrder, SERVICE_ORDER_VAR } from '../../src/dev/dev-options.js';
import { LOCAL_SERVICES } from '../../src/local-services.js';

const names = (list: readonly { name: string }[]) => list.map((service) => service.name);

describe('CLOUDFN_DEV_SERVICE_ORDER', () => {
  it('keeps the list as it is unset, empty or "listed"', () => {
    for (const env of [{}, { [SERVICE_ORDER_VAR]: '' }, { [SERVICE_ORDER_VAR]: 'listed' }])
      expect(names(inServiceOrder(LOCAL_SERVICES, env))).toEqual(names(LOCAL_SERVICES));
  });

  it('runs the services last first when "reversed", leaving the list itself alone', () => {
    const before = names(LOCAL_SERVICES);
    expect(names(inServiceOrder(LOCAL_SERVICES, { [SERVICE_ORDER_VAR]: 'reversed' }))).toEqual([...before].reverse());
    expect(names(LOCAL_SERVICES)).toEqual(before);
  });

  it('refuses another value in one line that names it and the fix', () => {
    expect(() => inServiceOrder(LOCAL_SERVICES, { [SERVICE_ORDER_VAR]: 'sideways' })).toThrow(
      'CLOUDFN_DEV_SERVICE_ORDER=sideways is not an order: set it to "listed" (the default) or "reversed", or unset it',
    );
  });
});
