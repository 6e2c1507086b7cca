// The provider's pace (decisions 046, 057, 064) on each database of the store, against the EmailJS fake at one
// request a second: "sqlite", one process on its own OUTBOX_DIR/outbox.sqlite (no DATABASE_URL), and
// "postgres", `replicas` processes on one fresh database of a real PostgreSQL server (DATABASE_URL), as
// compose.yaml runs them. A backlog drained, a visitor's answer, and the second of two posts in one second.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { median, p99 } from "./common.mjs";
import { importTs, ROOT } from "./ts.mjs";

/** The pacing is idle once the last request to the provider is this old (a slot is 1.05 s at 1 a second). */
const IDLE_MS = 1_200;
/** Visitors posting at once in the second run. */
const TOGETHER = 5;
const MAX_PER_SECOND = 1;

/**
 * `env`: the relay's settings; `message` and `headers`: a visitor's post; `replicas`: the processes on
 * PostgreSQL. On each database, `backlog` messages are kept while the fake answers 500, then drained;
 * `visitors` post one each, alone, then 5 at once.
 */
export async function measurePacing({ env, message, headers, backlog, visitors, replicas, log }) {
  const { modules, close } = await importTs(
    "tests/support/app-server.ts",
    "tests/support/emailjs-fake.ts",
    "tests/support/postgres-server.ts",
    "tests/support/until.ts",
  );
  await close();
  const [{ startAppServer }, fakes, { startPostgresServer, freshDatabase }, { until }] = modules;
  const engines = [
    { engine: "sqlite", replicas: 1 },
    { engine: "postgres", replicas },
  ];
  const parts = { env, message, headers, backlog, visitors, log, fakes, until, startAppServer };
  const results = [];
  let postgres = null;
  try {
    for (const spec of engines) {
      const started = performance.now();
      try {
        if (spec.engine === "postgres" && !postgres) {
          log("pacing (postgres): a PostgreSQL server of its own on 127.0.0.1");
          postgres = await startPostgresServer();
        }
        const databaseUrl = spec.engine === "postgres" ? await freshDatabase(postgres.url) : null;
        const figures = await measureEngine(spec, { ...parts, databaseUrl });
        results.push({ ...spec, ...figures, minutes: (performance.now() - started) / 60_000 });
      } catch (error) {
        // One database's failure is a finding: the other is still measured.
        log(`pacing (${spec.engine}): ${error.message}`);
        results.push({ ...spec, error: error.message.split("\n")[0] });
      }
    }
  } finally {
    await postgres?.remove();
  }
  return { maxPerSecond: MAX_PER_SECOND, atOnce: TOGETHER, engines: results };
}

async function measureEngine(
  spec,
  { env, message, headers, backlog, visitors, log, fakes, until, startAppServer, databaseUrl },
) {
  const { busiestSecond, OK_MODE, startEmailJsFake } = fakes;
  const stops = [];
  try {
    const fake = await startEmailJsFake();
    stops.push(() => fake.close());
    fake.limitRate(MAX_PER_SECOND);
    // A folder for each process: on PostgreSQL, as in compose.yaml, no process shares one.
    const folder = () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), "bench-pacing-"));
      stops.push(() => rmSync(dir, { recursive: true, force: true }));
      return dir;
    };
    const envs = Array.from({ length: spec.replicas }, () => ({
      ...env,
      EMAILJS_API_URL: fake.url,
      OUTBOX_DIR: folder(),
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      TRUST_PROXY: "1",
      CONTACT_BOT_CHECKS: "off",
      EMAILJS_MAX_PER_SECOND: String(MAX_PER_SECOND),
      CONTACT_REDELIVER_FIRST_SECONDS: "1",
      CONTACT_REDELIVER_MAX_SECONDS: "1",
      CONTACT_REDELIVER_UNCERTAIN_SECONDS: "1",
    }));
    const replicas = await Promise.all(envs.map((replicaEnv) => startAppServer({ env: replicaEnv })));
    stops.push(() => Promise.all(replicas.map((replica) => replica.stop())));
    /** What the owner's `outbox list` counts, beside the first replica. */
    const undelivered = () => countUndelivered(envs[0]);

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

/** `node build/outbox.js list` with a server's `env`, as the owner runs it: the count it prints. */
function countUndelivered(env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, "build/outbox.js"), "list"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (out += chunk));
    child.once("error", reject);
    child.once("exit", (code) => {
      const count = /^(\d+) undelivered message\(s\)/m.exec(out)?.[1];
      if (count === undefined) reject(new Error(`outbox list exited with ${code}: ${out}`));
      else resolve(Number(count));
    });
  });
}
