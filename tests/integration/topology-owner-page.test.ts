// The owner's page through deploy/Caddyfile in front of two replicas on one PostgreSQL database, as compose.yaml
// runs it: answered over HTTPS with its own headers (never stored, not indexed, the strict hashed CSP), its scripts
// too; and the owner's record and sign-in limit shared, whichever replica answers each step.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { AppServer } from "../support/app-server";
import type { Caddy } from "../support/caddy";
import { runOutboxCli } from "../support/outbox-cli";
import { ownerBrowser, softwarePasskey } from "../support/passkey";
import { freshDatabase } from "../support/postgres-server";
import { expectSecurityHeaders, startProxiedReplicas, tempOutbox } from "../support/topology";

const ORIGIN = "https://localhost";

let apps: AppServer[];
let caddy: Caddy;
let env: Record<string, string>;
let stop: () => Promise<void>;

beforeAll(async () => {
  env = {
    TRUST_PROXY: "1",
    DATABASE_URL: await freshDatabase(),
    // Outbox mode writes the messages it accepts here; nothing is posted in this file.
    OUTBOX_DIR: tempOutbox("topology-owner"),
    SITE_URL: ORIGIN,
    SESSION_SECRET: "topology-owner-secret-0123456789abcdef",
  };
  ({ apps, caddy, stop } = await startProxiedReplicas(env));
}, 120_000);

afterAll(async () => {
  await stop?.();
});

it("answers /owner through Caddy: private, no-store, noindex, the strict hashed CSP", async () => {
  const page = await caddy.request("/owner");
  expect(page.status).toBe(200);
  expectSecurityHeaders(page);
  expect(page.headers["cache-control"]).toBe("private, no-store");
  expect(page.headers["x-robots-tag"]).toBe("noindex");
  expect(page.headers["content-security-policy"]).toMatch(
    /script-src 'self' 'sha256-[^']+'.*'strict-dynamic'/,
  );
  expect(page.headers["strict-transport-security"]).toBeDefined();
  expect(page.body).toContain("Sign in with a passkey");
  const own = /"module":\s*"(\/assets\/owner-[\w-]+\.js)"/.exec(page.body)?.[1];
  expect(own).toBeDefined();
  expect((await caddy.request(own!)).headers["cache-control"]).toBe("private, no-store");
});

it("each step on the other replica: the CLI's link enrols, the session and the sign-in limit hold on both", async () => {
  /** One owner's browser whose every request the proxy may send to either replica: one cookie jar. */
  const jar = new Map<string, string>();
  const on = (app: AppServer, client = "203.0.113.9") => {
    // What Caddy adds to each request it forwards to a replica.
    const forwarded = {
      "X-Forwarded-For": client,
      "X-Forwarded-Host": "localhost",
      "X-Forwarded-Proto": "https",
    };
    const browser = ownerBrowser(app.url, ORIGIN, forwarded);
    for (const [name, value] of jar) browser.jar.set(name, value);
    const kept = () => {
      jar.clear();
      for (const [name, value] of browser.jar) jar.set(name, value);
    };
    return {
      startEnrol: (token: string) => browser.startEnrol(token).finally(kept),
      finishEnrol: (...args: Parameters<typeof browser.finishEnrol>) =>
        browser.finishEnrol(...args).finally(kept),
      startSignIn: () => browser.startSignIn().finally(kept),
      finishSignIn: (...args: Parameters<typeof browser.finishSignIn>) =>
        browser.finishSignIn(...args).finally(kept),
      get: (where: string) => browser.get(where).finally(kept),
    };
  };
  const [one, other] = apps as [AppServer, AppServer];
  const printed = await runOutboxCli(["owner-link"], env);
  expect(printed.code, printed.stderr).toBe(0);
  const token = new URL(printed.stdout.split("\n")[0]!).hash.slice(1);

  const passkey = softwarePasskey(ORIGIN);
  const enrolling = await on(one).startEnrol(token);
  expect(enrolling.status).toBe(200);
  const enrolled = await on(other).finishEnrol(passkey, enrolling);
  expect(enrolled.body).toEqual({ location: "/owner" });
  expect((await on(one).get("/owner")).body.toString()).toContain("Kept messages");

  jar.clear();
  expect((await on(one).get("/owner")).body.toString()).toContain("Sign in with a passkey");
  const signingIn = await on(other).startSignIn();
  expect(signingIn.status).toBe(200);
  const { answer } = await on(one).finishSignIn(passkey, signingIn);
  expect(answer.body).toEqual({ location: "/owner" });
  expect((await on(other).get("/owner")).body.toString()).toContain("Kept messages");

  // A stranger's 20 starts a minute, counted once for both replicas.
  jar.clear();
  const stranger = (i: number) => on(apps[i % 2]!, "198.51.100.99").startSignIn();
  const statuses: number[] = [];
  for (let i = 0; i < 22; i++) statuses.push((await stranger(i)).status);
  expect(statuses).toEqual([...Array<number>(20).fill(200), 429, 429]);
});
