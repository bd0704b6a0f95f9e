/** A TCP port of 127.0.0.1 free right now, for a server a test starts outside node (redis-server, podman). */
import { createServer } from 'node:net';

/**
 * Binds port 0, reads the port the kernel gave, and releases it.
 * @example const port = await freePort()
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
