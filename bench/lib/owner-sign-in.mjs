// The owner's sign-in under a flood (decision 058): a software passkey (tests/support/passkey.ts) signs
// in to /owner one whole ceremony at a time (each from an address of its own), alone and while `connections`
// other clients, each in a /64 of its own, keep starting sign-ins; its latency, and whether every sign-in landed.
// On each database of the store: the SQLite file (no DATABASE_URL), then a fresh database of a PostgreSQL server
// of its own (DATABASE_URL), where the owner's records and the sign-in limits then live.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { median, p99 } from "./common.mjs";
import { importTs } from "./ts.mjs";

/** The owner's n-th address: its own 20 starts a minute are not what is measured. */
const owner = (n) => ({ "X-Forwarded-For": `203.0.${(n >> 8) & 255}.${n & 255}` });

/** `send` one at a time for `seconds`: p50/p99 in ms and the statuses, counted. */
async function sequential(seconds, send) {
  const times = [];
  const statusCodes = {};
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const start = performance.now();
    const status = await send();
    times.push(performance.now() - start);
    statusCodes[status] = (statusCodes[status] ?? 0) + 1;
  }
  return { requests: times.length, p50Ms: median(times), p99Ms: p99(times), statusCodes };
}

export async function measureOwnerSignIn({ seconds, connections, log }) {
  const { modules, close } = await importTs(
    "tests/support/app-server.ts",
    "tests/support/passkey.ts",
    "tests/support/free-port.ts",
    "tests/support/outbox-cli.ts",
    "tests/support/postgres-server.ts",
  );
  await close();
  const [support, passkeys, { freePort }, { runOutboxCli }, { startPostgresServer, freshDatabase }] = modules;
  const parts = { support, passkeys, freePort, runOutboxCli, seconds, connections, log };
  const engines = [{ engine: "sqlite", ...(await onDatabase(null, parts)) }];
  log("the owner's sign-in on PostgreSQL: a server of its own on 127.0.0.1");
  const postgres = await startPostgresServer();
  try {
    engines.push({ engine: "postgres", ...(await onDatabase(await freshDatabase(postgres.url), parts)) });
  } finally {
    await postgres.remove();
  }
  return { connections, engines };
}

/** One server on the SQLite file (`databaseUrl` null) or on PostgreSQL: the owner alone, then beside the flood. */
async function onDatabase(
  databaseUrl,
  { support, passkeys, freePort, runOutboxCli, seconds, connections, log },
) {
  const { startAppServer } = support;
  const { ownerBrowser, softwarePasskey } = passkeys;
  const outbox = mkdtempSync(path.join(os.tmpdir(), "bench-owner-"));
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const env = {
    OUTBOX_DIR: outbox,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    SITE_URL: origin,
    SESSION_SECRET: "bench-owner-secret-0123456789abcdef0123",
    TRUST_PROXY: "loopback",
  };
  const app = await startAppServer({ env, port });
  try {
    const token = new URL((await runOutboxCli(["owner-link"], env)).stdout.split("\n")[0]).hash.slice(1);
    const passkey = softwarePasskey(origin);
    let signIns = 0;
    const enrolling = ownerBrowser(app.url, app.url, owner(signIns));
    const enrolled = await enrolling.finishEnrol(passkey, await enrolling.startEnrol(token));
    if (enrolled.status !== 200) throw new Error(`the bench's passkey was not enrolled: ${enrolled.status}`);
    const signIn = async () => {
      const browser = ownerBrowser(app.url, app.url, owner(++signIns));
      const started = await browser.startSignIn();
      if (started.status !== 200) return started.status;
      return (await browser.finishSignIn(passkey, started)).answer.status;
    };

    log(
      `the owner's sign-in (${databaseUrl ? "PostgreSQL" : "SQLite"}), ${seconds} s alone, then ${seconds} s beside ${connections} clients starting sign-ins`,
    );
    const alone = await sequential(seconds, signIn);
    let flooding = true;
    let next = 0;
    const flood = { requests: 0, statusCodes: {} };
    const stranger = async () => {
      while (flooding) {
        const n = next++;
        const client = `2001:db8:${(n >> 16) & 0xffff}:${(n & 0xffff).toString(16)}::1`;
        const { status } = await ownerBrowser(app.url, app.url, { "X-Forwarded-For": client }).startSignIn();
        flood.requests++;
        flood.statusCodes[status] = (flood.statusCodes[status] ?? 0) + 1;
      }
    };
    const strangers = Array.from({ length: connections }, stranger);
    const started = performance.now();
    const flooded = await sequential(seconds, signIn);
    flooding = false;
    await Promise.all(strangers);
    flood.perSecond = flood.requests / ((performance.now() - started) / 1000);
    return { alone, flooded, flood };
  } finally {
    await app.stop();
    rmSync(outbox, { recursive: true, force: true });
  }
}

/** The table's rows: section, figure, value, target, met; two for each database. */
export function ownerRows({ connections, engines }) {
  return engines.flatMap((engine) => engineRows(engine, connections));
}

function engineRows({ engine, alone, flooded, flood }, connections) {
  const codes = (x) =>
    Object.entries(x.statusCodes)
      .map(([status, n]) => `${n}×${status}`)
      .join(" ");
  const fmt = (x) =>
    `p50 ${Math.round(x.p50Ms)} ms, p99 ${Math.round(x.p99Ms)} ms (${x.requests} sign-ins, ${codes(x)})`;
  const landed = (x) => Object.keys(x.statusCodes).every((status) => status === "200");
  const section = `owner's sign-in (start + answer), ${engine === "postgres" ? "PostgreSQL" : "SQLite"}`;
  return [
    [section, "alone", fmt(alone), "every sign-in lands", landed(alone) ? "yes" : "**no**"],
    [
      section,
      `beside ${connections} clients starting sign-ins (${Math.round(flood.perSecond)} starts/s: ${codes(flood)})`,
      fmt(flooded),
      "every sign-in lands",
      landed(flooded) ? "yes" : "**no**",
    ],
  ];
}
