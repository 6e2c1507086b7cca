// Strangers cannot lock the owner out of /owner (decision 058), on the production server with a software passkey, on
// each engine the owner's record lives in: a flood of sign-in starts from other clients beside the owner's
// enrolment and sign-in, and kept up while the owner signs in; wrong link tokens from the owner's own address;
// a lost challenge; a replayed answer; the signed-out page the same bytes with and without a passkey. And
// TRUST_PROXY unset behind a proxy: refused in words the owner can act on, not a lock-out for 15 minutes.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { relayEnv } from "../support/contact";
import { startEmailJsFake } from "../support/emailjs-fake";
import { freePort } from "../support/free-port";
import { runOutboxCli } from "../support/outbox-cli";
import { ownerBrowser, softwarePasskey, type SoftwarePasskey } from "../support/passkey";
import { raw } from "../support/raw-http";
import { freshDatabase } from "../support/postgres-server";
import { until } from "../support/until";

const SECRET = "owner-lockout-test-secret-0123456789abcdef";
const OWNER = "203.0.113.7";
/** Another owner, behind the same address (NAT, CGNAT) as whoever tries wrong tokens. */
const SHARED = "198.51.100.23";
/** The i-th client of a flood: in three IPv6 /64s of the flood's own, as the adversarial run had them. */
const stranger = (flood: number, i: number) => `2001:db8:${flood}:${i % 3}::${(i + 1).toString(16)}`;
/** The i-th of many clients, each in a /64 of its own. */
const anyone = (i: number) => `2001:db8:ffff:${(i % 65_536).toString(16)}::1`;

async function serve(extra: Record<string, string>) {
  const fake = await startEmailJsFake();
  const outbox = await mkdtemp(path.join(tmpdir(), "owner-lockout-"));
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const env = relayEnv(fake.url, { OUTBOX_DIR: outbox, SITE_URL: origin, SESSION_SECRET: SECRET, ...extra });
  const app = await startAppServer({ env, port });
  return {
    fake,
    outbox,
    env,
    app,
    stop: async () => {
      await app.stop();
      await fake.close();
      await rm(outbox, { recursive: true, force: true });
    },
  };
}

describe.each(["PostgreSQL", "SQLite"])("on %s", { timeout: 120_000 }, (engine) => {
  let served: Awaited<ReturnType<typeof serve>>;
  let app: AppServer;
  let passkey: SoftwarePasskey;

  beforeAll(async () => {
    // On PostgreSQL the sign-in starts are counted in its rate_limits table too.
    const database: Record<string, string> =
      engine === "PostgreSQL" ? { DATABASE_URL: await freshDatabase() } : {};
    served = await serve({ TRUST_PROXY: "loopback", ...database });
    app = served.app;
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
  });

  const browser = (address = OWNER) => ownerBrowser(app.url, app.url, { "X-Forwarded-For": address });
  const origin = () => served.env.SITE_URL!;
  const newLink = async () => {
    const printed = await runOutboxCli(["owner-link"], served.env);
    expect(printed.code, printed.stderr).toBe(0);
    return new URL(printed.stdout.split("\n")[0]!).hash.slice(1);
  };
  /** `count` sign-in starts, the i-th from `client(i)`. */
  const flood = (count: number, client: (i: number) => string) =>
    Promise.all(Array.from({ length: count }, (_, i) => browser(client(i)).startSignIn()));
  const enrolled = async (key: SoftwarePasskey, address = OWNER) => {
    const owner = browser(address);
    const started = await owner.startEnrol(await newLink());
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const finished = await owner.finishEnrol(key, started);
    expect(finished.status, JSON.stringify(finished.body)).toBe(200);
    return owner;
  };

  it("a signed-out visitor gets the same /owner and /owner.data, headers and bytes, with or without a passkey", async () => {
    const snapshot = () =>
      Promise.all(
        ["/owner", "/owner.data", "/owner/enrol"].map(async (where) => {
          const { headers, body } = await browser(anyone(7)).get(where);
          const { date: _date, ...kept } = headers;
          return { where, headers: kept, body: body.toString("utf8") };
        }),
      );
    const before = await snapshot();
    expect(before.map(({ body }) => body.length).every((length) => length > 0)).toBe(true);
    passkey = softwarePasskey(origin());
    const owner = await enrolled(passkey);
    expect((await owner.get("/owner")).body.toString()).toContain("Kept messages");
    expect(await snapshot()).toEqual(before);
  });

  it("50 sign-in starts from three /64s between the owner's enrolment start and answer: the passkey is registered", async () => {
    const owner = browser();
    const started = await owner.startEnrol(await newLink());
    expect(started.status).toBe(200);
    expect((await flood(50, (i) => stranger(1, i))).map(({ status }) => status)).toEqual(Array(50).fill(200));
    const finished = await owner.finishEnrol(softwarePasskey(origin()), started);
    expect(finished.body).toEqual({ location: "/owner" });
    expect(finished.status).toBe(200);
  });

  it("50 sign-in starts from three /64s between the owner's sign-in start and answer: signed in; the answer again is refused", async () => {
    const owner = browser();
    const started = await owner.startSignIn();
    expect(started.status).toBe(200);
    expect((await flood(50, (i) => stranger(2, i))).map(({ status }) => status)).toEqual(Array(50).fill(200));
    const { answer, response } = await owner.finishSignIn(passkey, started);
    expect(answer.body).toEqual({ location: "/owner" });
    expect(answer.status).toBe(200);
    expect((await owner.step({ step: "sign_in", response })).status).toBe(403);
  });

  it("a passkey whose counter stays 0: the same answer with the same challenge cookie is refused the second time", async () => {
    const still = softwarePasskey(origin(), { counting: false });
    const owner = await enrolled(still);
    const started = await owner.startSignIn();
    const challengeCookie = new Map(owner.jar);
    const { answer, response } = await owner.finishSignIn(still, started);
    expect(answer.status).toBe(200);
    // The browser drops the challenge; a replay sends it again.
    const replay = browser();
    for (const [name, value] of challengeCookie) replay.jar.set(name, value);
    const again = await replay.step({ step: "sign_in", response });
    expect(again.status).toBe(403);
    expect(String(again.raw.headers["set-cookie"] ?? "")).not.toMatch(/owner_session=[^;]/);
  });

  it("a flood kept up from many clients while the owner signs in three times: each sign-in lands", async () => {
    let sent = 0;
    let flooding = true;
    const statuses = new Set<number>();
    const flow = (async () => {
      while (flooding) {
        const from = sent;
        for (const answer of await flood(10, (i) => anyone(1_000 + from + i))) statuses.add(answer.status);
        sent += 10;
      }
    })();
    try {
      for (let round = 0; round < 3; round++) {
        const owner = browser();
        const before = sent;
        await until(() => sent >= before + 50, "the flood's next starts");
        const started = await owner.startSignIn();
        expect(started.status).toBe(200);
        const mark = sent;
        // Twice the newest-50 list of challenges a flood once pushed the owner's out of (decision 058).
        await until(() => sent >= mark + 100, "starts between the owner's start and answer");
        const { answer } = await owner.finishSignIn(passkey, started);
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      }
    } finally {
      flooding = false;
      await flow;
    }
    // Each of the flood's starts was answered as any stranger's is.
    expect(statuses).toEqual(new Set([200]));
  });

  it("wrong link tokens from the owner's address count against the link: a fresh link works; ten close the open one, which says so", async () => {
    const neighbour = browser(SHARED);
    for (let i = 0; i < 10; i++) expect((await neighbour.startEnrol(`wrong-token-${i}`)).status).toBe(403);
    // The owner's fresh link, from the same address.
    await enrolled(softwarePasskey(origin()), SHARED);

    const token = await newLink();
    for (let i = 0; i < 10; i++) {
      const wrong = await browser(i % 2 ? SHARED : anyone(i)).startEnrol(`guess-${i}`);
      expect(wrong.body.error).toContain("cannot be used");
    }
    const closed = await browser(SHARED).startEnrol(token);
    expect(closed.status).toBe(403);
    expect(closed.body.error).toMatch(/closed after 10 wrong tries.*outbox owner-link/);
    await enrolled(softwarePasskey(origin()), SHARED);
  });

  it("an enrolment whose challenge was lost says to press the button again, and the link still works", async () => {
    const owner = browser();
    const token = await newLink();
    const key = softwarePasskey(origin());
    const lost = await owner.startEnrol(token);
    owner.jar.clear();
    const refused = await owner.finishEnrol(key, lost);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/expired.*press the button again/);
    expect(refused.body.error).not.toMatch(/used already/);
    const again = await owner.startEnrol(token);
    expect((await owner.finishEnrol(key, again)).status).toBe(200);
  });
});

describe("TRUST_PROXY unset behind a proxy", { timeout: 60_000 }, () => {
  let served: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    served = await serve({});
  }, 60_000);
  afterAll(() => served?.stop());

  it("is refused in words naming TRUST_PROXY, not a 15-minute lock-out after 20 starts by anyone", async () => {
    const { app } = served;
    const viaProxy = (address: string) => ownerBrowser(app.url, app.url, { "X-Forwarded-For": address });
    for (let i = 0; i < 20; i++) await viaProxy(anyone(i)).startSignIn();
    const owner = await viaProxy(OWNER).startSignIn();
    expect(owner.status).toBe(503);
    expect(owner.body.error).toMatch(/TRUST_PROXY is not set.*Set TRUST_PROXY/);
    const page = (await viaProxy(OWNER).get("/owner")).body.toString("utf8");
    expect(page).toMatch(/TRUST_PROXY is not set/);
    // Reached directly, with no proxy's header, it works as before.
    const direct = await raw(`${app.url}/owner/passkey`, {
      method: "POST",
      headers: { Origin: app.url, "Content-Type": "application/x-www-form-urlencoded" },
      body: "step=sign_in_options",
    });
    expect(direct.status).toBe(200);
  });
});
