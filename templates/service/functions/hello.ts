import type { Handler } from 'cloudfn';

/**
 * GET /hello?name=Ada or POST /hello with {"name":"Ada"}: the one function of a bare service.
 * Add a function by adding a file to functions/; its name is its path.
 */
const hello: Handler<{ name?: string }> = async (params, service) => {
  const name = params.name ?? 'world';
  service.log({ greeted: name });
  return { hello: name, greeting: `${process.env.GREETING ?? 'Hello'}, ${name}`, logid: service.logid };
};

export default hello;
