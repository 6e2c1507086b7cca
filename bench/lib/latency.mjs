// Requests one at a time: latency percentiles and the server's CPU per request.
import { performance } from "node:perf_hooks";
import { median, p99 } from "./common.mjs";
import { cpuMs } from "./load.mjs";

/**
 * Sequential requests of several kinds, `seconds` of each, taken in turns
 * (`rounds` rounds of `seconds / rounds` each) so a
 * busy moment on the machine falls on all of them alike: latency
 * percentiles in ms with sub-ms precision. Each kind is `{ send, pid }`;
 * given the server's `pid`, adds its CPU time per request, the median over
 * the rounds: the server time a request costs, apart from the client
 * sharing the machine.
 */
export async function interleavedCost(seconds, kindsByName, rounds = 10) {
  const kinds = Object.entries(kindsByName);
  for (const [, { send }] of kinds) {
    const warmUntil = performance.now() + 1000;
    while (performance.now() < warmUntil) await send();
  }
  const samples = Object.fromEntries(kinds.map(([name]) => [name, { times: [], cpu: [], statuses: {} }]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, { send, pid }] of kinds) {
      const sample = samples[name];
      const cpuBefore = pid ? cpuMs(pid) : null;
      const until = performance.now() + (seconds * 1000) / rounds;
      let count = 0;
      while (performance.now() < until) {
        const start = performance.now();
        const status = await send();
        sample.times.push(performance.now() - start);
        sample.statuses[status] = (sample.statuses[status] ?? 0) + 1;
        count++;
      }
      const cpuAfter = pid ? cpuMs(pid) : null;
      if (cpuBefore !== null && cpuAfter !== null) sample.cpu.push((cpuAfter - cpuBefore) / count);
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([name, { times, cpu, statuses }]) => [
      name,
      {
        requests: times.length,
        p50Ms: median(times),
        p99Ms: p99(times),
        statusCodes: statuses,
        serverCpuMsPerRequest: cpu.length ? median(cpu) : null,
      },
    ]),
  );
}

/** One kind of request alone, sequentially for `seconds`. */
export async function sequentialLatency(seconds, send) {
  return (await interleavedCost(seconds, { only: { send } }, 1)).only;
}
