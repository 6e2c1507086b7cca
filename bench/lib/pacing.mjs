// The provider's pace (decision 046) on two production replicas sharing a redis-server and an outbox, against
// the EmailJS fake at one request a second: a backlog drained, and what the pacing adds to a visitor's send.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { median, p99 } from "./common.mjs";
import { importTs } from "./ts.mjs";

/** The pacing is idle once the last request to the provider is this old (a slot is 1.05 s at 1 a second). */
const IDLE_MS = 1_200;
/** Visitors posting at once in the second run. */
const TOGETHER = 5;

/**
 * `env`: the relay's settings; `message` and `headers`: a visitor's post. `backlog` messages are kept while
 * the fake answers 500, then drained; `visitors` post one each, alone, then 5 at once.
 */
export async function measurePacing({ env, message, headers, backlog, visitors, log }) {
  const { modules, close } = await importTs(
    "tests/support/app-server.ts",
    "tests/support/emailjs-fake.ts",
    "tests/support/redis-server.ts",
    "tests/support/until.ts",
  );
  await close();
  const [{ startAppServer }, { busiestSecond, OK_MODE, startEmailJsFake }, { startRedisServer }, { until }] =
    modules;
  const stops = [];
  try {
    const fake = await startEmailJsFake();
    stops.push(() => fake.close());
    fake.limitRate(1);
    const redis = await startRedisServer();
    stops.push(() => redis.stop());
    const outbox = mkdtempSync(path.join(os.tmpdir(), "bench-pacing-"));
    stops.push(() => rmSync(outbox, { recursive: true, force: true }));
    const replicaEnv = {
      ...env,
      EMAILJS_API_URL: fake.url,
      OUTBOX_DIR: outbox,
      REDIS_URL: redis.url,
      TRUST_PROXY: "1",
      CONTACT_BOT_CHECKS: "off",
      EMAILJS_MAX_PER_SECOND: "1",
      CONTACT_REDELIVER_FIRST_SECONDS: "1",
      CONTACT_REDELIVER_MAX_SECONDS: "1",
      CONTACT_REDELIVER_UNCERTAIN_SECONDS: "1",
    };
    const replicas = await Promise.all([0, 1].map(() => startAppServer({ env: replicaEnv })));
    stops.push(() => Promise.all(replicas.map((replica) => replica.stop())));

    const undelivered = path.join(outbox, "undelivered");
    const readKept = (name) => {
      try {
        return JSON.parse(readFileSync(path.join(undelivered, name), "utf8"));
      } catch {
        return null; // sent and removed meanwhile
      }
    };
    const kept = () => {
      try {
        return readdirSync(undelivered).filter((name) => name.endsWith(".json") && !name.startsWith("."));
      } catch {
        return [];
      }
    };
    const keptReason = (subject) =>
      kept()
        .map(readKept)
        .find((entry) => entry?.template_params.subject === subject)?.reason ?? null;
    const mailedAt = (subject) =>
      fake.requests.find((r) => r.status === 200 && r.rawBody.includes(`"${subject}"`))?.at ?? null;

    /** A no-JS post to a replica from `client` (as the proxy names it): the answer's time and what was kept. */
    const post = async (i, client, subject) => {
      const started = performance.now();
      const res = await fetch(`${replicas[i % 2].url}/?index`, {
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
      const ms = performance.now() - started;
      return { subject, status: res.status, ms, started, reason: keptReason(subject) };
    };
    const drained = (what, ms) => until(() => kept().length === 0, what, ms);

    log(`pacing: a backlog of ${backlog} kept while the fake answers 500, then drained`);
    fake.setMode({ kind: "status", status: 500 });
    const answers = await Promise.all(
      Array.from({ length: backlog }, (_, i) => post(i, `10.${i}.0.1`, `Backlog ${i}`)),
    );
    const keptCount = kept().length;
    const from = fake.requests.length;
    const switched = performance.now();
    fake.setMode(OK_MODE);
    await drained("the backlog to drain", 60_000 + backlog * 5_000);
    const seconds = (performance.now() - switched) / 1000;
    const sent = fake.requests.slice(from);
    const gaps = sent.slice(1).map((r, i) => r.at - sent[i].at);
    const drain = {
      posted: backlog,
      statusCodes: countBy(answers.map((a) => a.status)),
      kept: keptCount,
      delivered: sent.filter((r) => r.status === 200).length,
      requests: sent.length,
      seconds,
      requestsPerSecond: sent.length / seconds,
      meanGapMs: gaps.length ? gaps.reduce((a, b) => a + b, 0) / gaps.length : null,
      busiestSecond: busiestSecond(sent),
      tooMany: sent.filter((r) => r.status === 429).length,
    };

    const quietMs = () => performance.now() - (fake.requests.at(-1)?.at ?? -Infinity);
    const idle = () =>
      until(() => kept().length === 0 && quietMs() >= IDLE_MS, "the pacing to be idle", 60_000);
    log(`pacing: ${visitors} visitors post one at a time, the pacing idle`);
    const alone = [];
    for (let i = 0; i < visitors; i++) {
      await idle();
      alone.push(await post(i, `10.${i}.1.1`, `Alone ${i}`));
    }
    log(`pacing: ${visitors} visitors post ${TOGETHER} at once`);
    const together = [];
    for (let i = 0; i < visitors; i += TOGETHER) {
      await idle();
      const group = Array.from({ length: Math.min(TOGETHER, visitors - i) }, (_, j) => i + j);
      together.push(...(await Promise.all(group.map((k) => post(k, `10.${k}.2.1`, `Together ${k}`)))));
    }
    await drained("the paced messages to go out", 60_000);
    return {
      replicas: replicas.length,
      maxPerSecond: 1,
      drain,
      alone: visitorFigures(alone, mailedAt),
      together: { ...visitorFigures(together, mailedAt), atOnce: TOGETHER },
      tooManyInAll: fake.requests.filter((r) => r.status === 429).length,
    };
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

const countBy = (values) => values.reduce((n, v) => ({ ...n, [v]: (n[v] ?? 0) + 1 }), {});

/** Percentiles of the answers' times; those kept as "paced" and how long until their mail went out. */
function visitorFigures(posts, mailedAt) {
  const times = posts.map((p) => p.ms);
  const paced = posts.filter((p) => p.status === 303 && p.reason === "paced");
  const laterMs = paced
    .map((p) => mailedAt(p.subject))
    .flatMap((at, i) => (at === null ? [] : [at - paced[i].started]));
  return {
    posts: posts.length,
    statusCodes: countBy(posts.map((p) => p.status)),
    p50Ms: median(times),
    p99Ms: p99(times),
    paced: paced.length,
    pacedMailed: laterMs.length,
    pacedMailedAfterMaxMs: laterMs.length ? Math.max(...laterMs) : null,
  };
}
