// HTTP load with autocannon (adapted from the team's shared perf tools).
import os from "node:os";
import autocannon from "autocannon";

function run(options) {
  return new Promise((resolve, reject) => autocannon(options, (error, result) => (error ? reject(error) : resolve(result))));
}

/**
 * `connections` concurrent connections for `duration` seconds after `warmup`
 * unmeasured seconds. Returns req/s (mean), latency p50/p99 in ms, errors
 * (connection errors + timeouts) and the status codes seen.
 */
export async function load({ url, connections, duration, warmup = 2, method = "GET", headers = {}, body }) {
  const options = { url, connections, method, headers, body, pipelining: 1 };
  if (warmup > 0) await run({ ...options, duration: warmup });
  const loadavg1 = os.loadavg()[0];
  const r = await run({ ...options, duration });
  return {
    url,
    method,
    connections,
    duration,
    reqPerSec: r.requests.mean,
    latencyMs: { p50: r.latency.p50, p99: r.latency.p99, mean: r.latency.mean, max: r.latency.max },
    requests: r.requests.total,
    errors: r.errors + r.timeouts,
    statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count])),
    loadavg1: Math.round(loadavg1 * 100) / 100,
  };
}
