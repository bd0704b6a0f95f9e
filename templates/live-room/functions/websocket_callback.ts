// The WebSocket gateway calls this for the anchor's game client: GET with x-tt-event-type
// connect or disconnect, POST with uplink and the client's message as the body. A connect is
// accepted (any 2xx), an uplink is answered with what came, and each event is logged with the
// connection's session id.
import type { Service } from 'cloudfn';

export default async function websocketCallback(params: unknown, service: Service) {
  const event = service.headers['x-tt-event-type'];
  service.log({ event, session: service.headers['x-tt-sessionid'], openid: service.headers['x-tt-openid'] });
  if (event === 'uplink') return { echo: params };
  return 'success';
}
