// The liveness probe of deploy/kubernetes.yaml, run with node because the image has no curl:
// exit 0 while the server answers GET /v1/ping, with 200 or with 503 while it drains after
// SIGTERM (a draining process is alive and must not be restarted); exit 1 otherwise.
// A file rather than `node -e "..."`: podman kube play splits an exec probe's arguments at spaces.
const port = process.env.PORT || 8000;
fetch(`http://127.0.0.1:${port}/v1/ping`, { signal: AbortSignal.timeout(3000) }).then(
  (res) => process.exit(res.status === 200 || res.status === 503 ? 0 : 1),
  () => process.exit(1),
);
