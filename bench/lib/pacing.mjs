// The provider's pace (decisions 046, 053, 057) on each engine, against the EmailJS fake at one request a second:
// the queue (two replicas, one redis-server, a store each), the SQLite store (one process, no Redis) and an
// earlier commit (--before). A backlog drained, a visitor's answer, and the second of two posts in one second.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { spawnSync } from "node:child_process";
import { countUndelivered, prepareCheckout } from "./checkout.mjs";
import { median, p99 } from "./common.mjs";
import { importTs, ROOT } from "./ts.mjs";

/** The pacing is idle once the last request to the provider is this old (a slot is 1.05 s at 1 a second). */
const IDLE_MS = 1_200;
/** Visitors posting at once in the second run. */
const TOGETHER = 5;
const MAX_PER_SECOND = 1;

/**
 * `env`: the relay's settings; `message` and `headers`: a visitor's post; `before`: the commit to measure
 * too, or null. On each engine, `backlog` messages are kept while the fake answers 500, then drained;
 * `visitors` post one each, alone, then 5 at once.
 */
export async function measurePacing({ env, message, headers, backlog, visitors, before, log }) {
  const { modules, close } = await importTs(
    "tests/support/app-server.ts",
    "tests/support/emailjs-fake.ts",
    "tests/support/redis-server.ts",
    "tests/support/until.ts",
  );
  await close();
  const [{ startAppServer }, fakes, { startRedisServer }, { until }] = modules;
  const head = spawnSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8" }).stdout.trim();
  const earlier = before ? prepareCheckout(before, log) : null;
  const engines = [
    { engine: "queue", root: ROOT, commit: head, replicas: 2, redis: true, sharedFolder: false },
    { engine: "sqlite", root: ROOT, commit: head, replicas: 1, redis: false, sharedFolder: false },
    // The revision before: its queue, and its folder engine for one process (what the SQLite store replaces).
    ...(earlier
      ? [
          {
            engine: "before",
            root: earlier.dir,
            commit: earlier.commit,
            replicas: 2,
            redis: true,
            sharedFolder: true,
          },
          {
            engine: "folder",
            root: earlier.dir,
            commit: earlier.commit,
            replicas: 1,
            redis: false,
            sharedFolder: false,
          },
        ]
      : []),
  ];
  const parts = { env, message, headers, backlog, visitors, log, fakes, startRedisServer, until };
  const results = [];
  for (const { root, ...spec } of engines) {
    const started = performance.now();
    try {
      const figures = await measureEngine(root, spec, { ...parts, startAppServer });
      results.push({ ...spec, ...figures, minutes: (performance.now() - started) / 60_000 });
    } catch (error) {
      // One engine's failure is a finding: the others are still measured.
      log(`pacing (${spec.engine}): ${error.message}`);
      results.push({ ...spec, error: error.message.split("\n")[0] });
    }
  }
  return { maxPerSecond: MAX_PER_SECOND, atOnce: TOGETHER, engines: results };
}

async function measureEngine(
  root,
  spec,
  { env, message, headers, backlog, visitors, log, fakes, startRedisServer, until, startAppServer },
) {
  const { busiestSecond, OK_MODE, startEmailJsFake } = fakes;
  const stops = [];
  try {
    const fake = await startEmailJsFake();
    stops.push(() => fake.close());
    fake.limitRate(MAX_PER_SECOND);
    const redis = spec.redis ? await startRedisServer() : null;
    if (redis) stops.push(() => redis.stop());
    const folder = () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), "bench-pacing-"));
      stops.push(() => rmSync(dir, { recursive: true, force: true }));
      return dir;
    };
    const shared = spec.sharedFolder ? folder() : null;
    const envs = Array.from({ length: spec.replicas }, () => ({
      ...env,
      EMAILJS_API_URL: fake.url,
      OUTBOX_DIR: shared ?? folder(),
      ...(redis ? { REDIS_URL: redis.url } : {}),
      TRUST_PROXY: "1",
      CONTACT_BOT_CHECKS: "off",
      EMAILJS_MAX_PER_SECOND: String(MAX_PER_SECOND),
      CONTACT_REDELIVER_FIRST_SECONDS: "1",
      CONTACT_REDELIVER_MAX_SECONDS: "1",
      CONTACT_REDELIVER_UNCERTAIN_SECONDS: "1",
    }));
    const replicas = await Promise.all(envs.map((replicaEnv) => startAppServer({ root, env: replicaEnv })));
    stops.push(() => Promise.all(replicas.map((replica) => replica.stop())));
    /** What the owner's `outbox list` counts, beside the first replica. */
    const undelivered = () => countUndelivered(root, envs[0]);

    const mailedAt = (subject) =>
      fake.requests.find((r) => r.status === 200 && r.rawBody.includes(`"${subject}"`))?.at ?? null;
    const mailed = (posts) => posts.every((p) => mailedAt(p.subject) !== null);
    /** Answered as sent or kept: mailed sooner or later. */
    const accepted = (posts) => posts.filter((p) => p.status === 303 || p.status === 502);

    /** A no-JS post to a replica from `client` (as the proxy names it): when it was answered, and how. */
    const post = async (i, client, subject) => {
      const started = performance.now();
      const res = await fetch(`${replicas[i % replicas.length].url}/?index`, {
        method: "POST",
        redirect: "manual",
        headers: {
          ...headers,
          "content-type": "application/x-www-form-urlencoded",
          "x-forwarded-for": client,
        },
        // Distinct texts: the same text from many clients is scored as spam.
        body: new URLSearchParams({
          ...message,
          subject,
          message: `${message.message} (${subject})`,
          website: "",
        }),
      });
      await res.arrayBuffer();
      const answered = performance.now();
      return { subject, status: res.status, ms: answered - started, started, answered };
    };

    log(`pacing (${spec.engine}): a backlog of ${backlog} kept while the fake answers 500, then drained`);
    fake.setMode({ kind: "status", status: 500 });
    const answers = await Promise.all(
      Array.from({ length: backlog }, (_, i) => post(i, `10.${i}.0.1`, `Backlog ${i}`)),
    );
    const kept = await undelivered();
    const from = fake.requests.length;
    const switched = performance.now();
    fake.setMode(OK_MODE);
    const waited = accepted(answers);
    await until(() => mailed(waited), "the backlog to drain", 60_000 + backlog * 5_000);
    const last = Math.max(switched, ...waited.map((p) => mailedAt(p.subject)));
    const sent = fake.requests.slice(from).filter((r) => r.at <= last);
    const seconds = (last - switched) / 1000;
    const gaps = sent.slice(1).map((r, i) => r.at - sent[i].at);
    const drain = {
      posted: backlog,
      statusCodes: countBy(answers.map((a) => a.status)),
      kept,
      delivered: sent.filter((r) => r.status === 200).length,
      requests: sent.length,
      seconds,
      requestsPerSecond: sent.length / seconds,
      meanGapMs: gaps.length ? gaps.reduce((a, b) => a + b, 0) / gaps.length : null,
      busiestSecond: busiestSecond(sent),
      tooMany: sent.filter((r) => r.status === 429).length,
      left: await undelivered(),
    };

    const quietMs = () => performance.now() - (fake.requests.at(-1)?.at ?? -Infinity);
    const idle = (posts) =>
      until(() => mailed(accepted(posts)) && quietMs() >= IDLE_MS, "the pacing to be idle", 60_000);
    log(`pacing (${spec.engine}): ${visitors} visitors post one at a time, the pacing idle`);
    const alone = [];
    for (let i = 0; i < visitors; i++) {
      await idle(alone);
      alone.push(await post(i, `10.${i}.1.1`, `Alone ${i}`));
    }
    log(`pacing (${spec.engine}): ${visitors} visitors post ${TOGETHER} at once`);
    const together = [];
    for (let i = 0; i < visitors; i += TOGETHER) {
      await idle([...alone, ...together]);
      const group = Array.from({ length: Math.min(TOGETHER, visitors - i) }, (_, j) => i + j);
      together.push(...(await Promise.all(group.map((k) => post(k, `10.${k}.2.1`, `Together ${k}`)))));
    }
    log(`pacing (${spec.engine}): two posts in the same second, the pacing idle`);
    await idle(together);
    const pair = await Promise.all([post(0, "10.0.3.1", "Pair A"), post(1, "10.1.3.1", "Pair B")]);
    await until(() => mailed(accepted(pair)), "the pair to be mailed", 60_000);
    const secondMs = Math.max(...pair.map((p) => mailedAt(p.subject) ?? Infinity)) - pair[0].started;
    await idle(pair);
    return {
      replicas: replicas.length,
      drain,
      alone: visitorFigures(alone, mailedAt),
      together: visitorFigures(together, mailedAt),
      /** From two posts in one second to the second one's mail reaching EmailJS. */
      secondOfTwoMs: secondMs,
      left: await undelivered(),
      tooManyInAll: fake.requests.filter((r) => r.status === 429).length,
    };
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

const countBy = (values) => values.reduce((n, v) => ({ ...n, [v]: (n[v] ?? 0) + 1 }), {});

/** Percentiles of the answers' times; those answered 303 before their mail went out (kept), and how long it took. */
function visitorFigures(posts, mailedAt) {
  const times = posts.map((p) => p.ms);
  const later = posts.filter((p) => {
    const at = mailedAt(p.subject);
    return p.status === 303 && (at === null || at > p.answered);
  });
  const laterMs = later.flatMap((p) =>
    mailedAt(p.subject) === null ? [] : [mailedAt(p.subject) - p.started],
  );
  return {
    posts: posts.length,
    statusCodes: countBy(posts.map((p) => p.status)),
    p50Ms: median(times),
    p99Ms: p99(times),
    kept: later.length,
    keptMailed: laterMs.length,
    keptMailedWithinMs: laterMs.length ? Math.max(...laterMs) : null,
  };
}
