// HTTP load with autocannon (adapted from the team's shared perf tools).
import { readFileSync } from "node:fs";
import os from "node:os";
import autocannon from "autocannon";

/** CPU time (user + system) a process has used, in ms; null where /proc is missing. */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    // utime and stime (fields 14 and 15 of stat) in clock ticks, 100 per second on Linux.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

function run(options) {
  return new Promise((resolve, reject) =>
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

/**
 * `connections` concurrent connections for `duration` seconds after `warmup`
 * unmeasured seconds. Returns req/s (mean), latency p50/p99 in ms, errors
 * (connection errors + timeouts), the status codes seen and, given the
 * server's `pid`, the CPU time it spent per request: unlike req/s, that
 * figure holds up when other work shares the machine.
 */
export async function load({
  url,
  connections,
  duration,
  warmup = 2,
  method = "GET",
  headers = {},
  body,
  pid,
}) {
  const options = { url, connections, method, headers, body, pipelining: 1 };
  if (warmup > 0) await run({ ...options, duration: warmup });
  const loadavg1 = os.loadavg()[0];
  const cpuBefore = pid ? cpuMs(pid) : null;
  const r = await run({ ...options, duration });
  const cpuAfter = pid ? cpuMs(pid) : null;
  return {
    url,
    method,
    connections,
    duration,
    reqPerSec: r.requests.mean,
    latencyMs: { p50: r.latency.p50, p99: r.latency.p99, mean: r.latency.mean, max: r.latency.max },
    requests: r.requests.total,
    errors: r.errors + r.timeouts,
    statusCodes: Object.fromEntries(
      Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]),
    ),
    serverCpuMsPerRequest:
      cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / r.requests.total,
    loadavg1: Math.round(loadavg1 * 100) / 100,
  };
}
