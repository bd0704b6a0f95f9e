/**
 * The dev server of the reload rows, in its own process: `node dev-server.mjs <root>
 * [--typecheck]` starts `startDevServer` on 127.0.0.1 port 0 with its log lines dropped (and
 * the type checker on with --typecheck), and reports `{ port }` over the IPC channel.
 */
const { startDevServer } = await import('../../../dist/src/dev/index.js');

const dev = await startDevServer({
  root: process.argv[2],
  port: 0,
  host: '127.0.0.1',
  sink: { write() {} },
  color: false,
  typecheck: process.argv.includes('--typecheck'),
});
process.send({ port: dev.port });
process.on('disconnect', () => {
  dev.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
