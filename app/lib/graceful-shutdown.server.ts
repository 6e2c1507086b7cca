/**
 * remix-serve answers SIGTERM and SIGINT with server.close(): it stops
 * accepting, lets in-flight requests finish, and the process exits 0 once
 * nothing is left. A request that never finishes (a client that stalls
 * mid-request) would hold that forever, so this bounds it: after the grace
 * period the process exits anyway, with 1 since requests were cut.
 */
export const SHUTDOWN_GRACE_MS = 10_000;

const INSTALLED = Symbol.for("portfolio.shutdownBound");

export function installShutdownBound(graceMs = SHUTDOWN_GRACE_MS) {
  const registry = globalThis as { [INSTALLED]?: boolean };
  if (registry[INSTALLED]) return;
  registry[INSTALLED] = true;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      console.log(`[shutdown] ${signal}: finishing in-flight requests (at most ${graceMs / 1000} s)`);
      // unref'd: a clean close still exits at once, with 0.
      setTimeout(() => {
        console.error(`[shutdown] requests still open after ${graceMs / 1000} s; exiting`);
        process.exit(1);
      }, graceMs).unref();
    });
  }
}
