import type { Handler } from 'cloudfn';

/** GET /hello?name=Ada or POST /hello with {"name":"Ada"}. */
const hello: Handler<{ name?: string }> = async (params, service) => {
  const name = typeof params?.name === 'string' && params.name !== '' ? params.name : 'world';
  service.log({ greeted: name });
  return { hello: name, trigger: service.trigger, logid: service.logid };
};

export default hello;
