// The owner's page over HTTP on the production server with its store on PostgreSQL: its headers, and each refusal (a wrong or
// expired link, a forged cookie, a post from another site or without a session) leaving everything as it was.
// The passkey ceremonies themselves run in Chromium (tests/e2e/owner.spec.ts).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { BROWSER_HEADERS, VALID, postForm, relayEnv } from "../support/contact";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { freePort } from "../support/free-port";
import { runOutboxCli } from "../support/outbox-cli";
import { freshDatabase } from "../support/postgres-server";
import { until } from "../support/until";

const SECRET = "owner-page-test-secret-0123456789abcdef";
const SPAMMY = { name: "https://spam.example", message: "Go to https://bit.ly/abc or https://x.example" };

describe("the owner's page over HTTP", { timeout: 60_000 }, () => {
  let database: string;
  let fake: EmailJsFake;
  let app: AppServer;
  let outbox: string;
  let env: Record<string, string>;
  let origin: string;

  beforeAll(async () => {
    database = await freshDatabase();
    fake = await startEmailJsFake();
    outbox = await mkdtemp(path.join(tmpdir(), "owner-page-"));
    const port = await freePort();
    origin = `http://localhost:${port}`;
    env = relayEnv(fake.url, {
      OUTBOX_DIR: outbox,
      DATABASE_URL: database,
      SITE_URL: origin,
      SESSION_SECRET: SECRET,
    });
    app = await startAppServer({ env, port });
    expect(
      (await postForm(`${app.url}/?index`, { ...VALID, ...SPAMMY, subject: "Held" }, BROWSER_HEADERS)).status,
    ).toBe(303);
    await until(
      async () => /1 suspected spam/.test((await runOutboxCli(["spam", "list"], env)).stdout),
      "held",
    );
  }, 60_000);

  afterAll(async () => {
    await app?.stop();
    await fake?.close();
    await rm(outbox, { recursive: true, force: true });
  });

  const heldId = async () =>
    /([0-9a-f]{32})\s*$/m.exec((await runOutboxCli(["spam", "list"], env)).stdout)?.[1];
  const ownerPost = (where: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${app.url}${where}`, {
      method: "POST",
      headers: { Origin: app.url, "Content-Type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(fields),
      redirect: "manual",
    });

  it("answers private, no-store, noindex, with the strict hashed CSP, and offers the sign-in", async () => {
    for (const where of ["/owner", "/owner/enrol"]) {
      const page = await fetch(`${app.url}${where}`);
      expect(page.status, where).toBe(200);
      expect(page.headers.get("cache-control"), where).toBe("private, no-store");
      expect(page.headers.get("x-robots-tag"), where).toBe("noindex");
      expect(page.headers.get("content-security-policy"), where).toMatch(
        /script-src 'self' 'sha256-[^']+'.*'strict-dynamic'/,
      );
      const html = await page.text();
      expect(html, where).toContain('<meta name="robots" content="noindex, nofollow"/>');
    }
    const html = await (await fetch(`${app.url}/owner`)).text();
    expect(html).toContain("Sign in with a passkey");
    // Its own scripts too; the ones the public page shares stay cacheable for a year.
    const own = /"module":\s*"(\/assets\/owner-[\w-]+\.js)"/.exec(html)?.[1];
    const shared = /"module":\s*"(\/assets\/entry\.client-[\w-]+\.js)"/.exec(html)?.[1];
    expect(own && shared).toBeTruthy();
    expect((await fetch(`${app.url}${own}`)).headers.get("cache-control")).toBe("private, no-store");
    expect((await fetch(`${app.url}${shared}`)).headers.get("cache-control")).toBe(
      "public, max-age=31536000, immutable",
    );
  });

  it("`outbox owner-link` prints a link with its token after #; a wrong token is refused plainly", async () => {
    const printed = await runOutboxCli(["owner-link"], env);
    expect(printed.code).toBe(0);
    const link = new URL(printed.stdout.split("\n")[0]!);
    expect(link.origin + link.pathname).toBe(`${origin}/owner/enrol`);
    expect(link.hash.length).toBeGreaterThan(40);
    const good = await ownerPost("/owner/passkey", { step: "enrol_options", token: link.hash.slice(1) });
    expect(good.status).toBe(200);
    expect(((await good.json()) as { options: { rp: { id: string } } }).options.rp.id).toBe("localhost");

    const wrong = await ownerPost("/owner/passkey", { step: "enrol_options", token: "not-a-token" });
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toContain("cannot be used");
    expect(app.output()).not.toContain(link.hash.slice(1));
  });

  it("refuses an expired link", async () => {
    const token = new URL((await runOutboxCli(["owner-link"], env)).stdout.split("\n")[0]!).hash.slice(1);
    // 15 minutes later: the link's record as it will be then, in the database every instance reads.
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    try {
      const { rows } = await client.query<{ value: string }>(
        "SELECT value FROM records WHERE name = 'owner'",
      );
      const record = JSON.parse(rows[0]!.value) as { links: Record<string, { expires: string }> };
      for (const link of Object.values(record.links))
        link.expires = new Date(Date.now() - 1000).toISOString();
      await client.query("UPDATE records SET value = $1, version = version + 1 WHERE name = 'owner'", [
        JSON.stringify(record),
      ]);
    } finally {
      await client.end();
    }
    const expired = await ownerPost("/owner/passkey", { step: "enrol_options", token });
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain("cannot be used");
  });

  it("a post without a session, with a forged cookie or from another site changes nothing", async () => {
    const id = (await heldId())!;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    const attempts = [
      ["/owner", {}],
      ["/owner", { Cookie: "owner_session=forged" }],
      ["/owner", { Cookie: `owner_session=${encodeURIComponent(btoa('"forged"'))}.c2lnbmF0dXJl` }],
      ["/owner", { Origin: "https://evil.example" }],
      ["/owner/export", {}],
      ["/owner/export", { Origin: "https://evil.example" }],
    ] as const;
    for (const [where, headers] of attempts) {
      for (const intent of ["release", "delete"]) {
        const refused = await ownerPost(where, { intent, id }, headers);
        expect(refused.status, `${where} ${intent} ${JSON.stringify(headers)}`).toBe(403);
        expect(refused.headers.get("cache-control")).toBe("private, no-store");
        expect(await refused.text()).toMatch(
          /Refused: (sign in first|this request did not come from this site)/,
        );
      }
    }
    const forged = await fetch(`${app.url}/owner`, { headers: { Cookie: "owner_session=forged" } });
    expect(await forged.text()).toContain("Sign in with a passkey");
    expect(await heldId()).toBe(id);
    expect(fake.requests).toHaveLength(0);
  });

  it("limits sign-in attempts per client and logs them without a secret", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++)
      statuses.push((await ownerPost("/owner/passkey", { step: "sign_in_options" })).status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(200));
    expect(statuses[20]).toBe(429);
    expect(app.output()).toMatch(
      /"event":"owner","step":"sign_in","outcome":"refused","reason":"too_many_attempts"/,
    );
    expect(app.output()).not.toContain(SECRET);
  });
});

describe("without SESSION_SECRET, or on plain HTTP at a public address", { timeout: 60_000 }, () => {
  it.each([
    [{ SITE_URL: "http://localhost:1" }, "SESSION_SECRET is not set"],
    [{ SITE_URL: "http://owner.example", SESSION_SECRET: SECRET }, "plain HTTP on a public address"],
  ])("the page and `outbox owner-link` refuse to enrol and say why (%o)", async (extra, why) => {
    const fake = await startEmailJsFake();
    const env = relayEnv(fake.url, extra);
    const app = await startAppServer({ env });
    try {
      expect(await (await fetch(`${app.url}/owner/enrol`)).text()).toContain(why);
      expect(await (await fetch(`${app.url}/owner`)).text()).toContain(why);
      const printed = await runOutboxCli(["owner-link"], env);
      expect(printed.code).toBe(2);
      expect(printed.stderr).toContain(why);
      const options = await fetch(`${app.url}/owner/passkey`, {
        method: "POST",
        headers: { Origin: app.url, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ step: "sign_in_options" }),
      });
      expect(options.status).toBe(503);
    } finally {
      await app.stop();
      await fake.close();
    }
  });
});
