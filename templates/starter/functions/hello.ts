import { defineFunction } from 'cloudfn';
import { z } from 'zod';

/**
 * GET /hello?name=Ada or POST /hello with {"name":"Ada"}. The params are declared once: they are
 * validated before the handler (an empty name is answered 400 CLOUDFN_BAD_PARAMS with the field
 * `/name`), `params.name` is typed string, and `cloudfn client` types the callers from it.
 */
export const config = {
  params: z.object({ name: z.string().min(1, 'name must not be empty').max(100).default('world') }),
};

export default defineFunction(config, async (params, service) => {
  service.log({ greeted: params.name });
  return { hello: params.name, trigger: service.trigger, logid: service.logid };
});
