// The production server with real environments: the theme and flash cookies
// are signed with SESSION_SECRET (so replicas sharing it read each other's
// cookies, and no one can forge them), a missing secret is announced once,
// and a bad redirect target is a redirect home, never a 500.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCookieSessionStorage } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { VALID, postForm } from "../support/contact";
import { OFF_SITE_REDIRECTS } from "../support/off-site-redirects";

const SECRET = "integration-SESSION-secret-0123456789";

/** A theme cookie as a replica sharing `secret` would have written it. */
async function themeCookie(secret: string, theme: "light" | "dark") {
  const storage = createCookieSessionStorage({ cookie: { name: "theme", secrets: [secret] } });
  const session = await storage.getSession();
  session.set("theme", theme);
  return (await storage.commitSession(session)).split(";")[0]!;
}

async function themeOf(app: AppServer, cookie: string) {
  const html = await (await fetch(`${app.url}/`, { headers: { cookie } })).text();
  return /<html[^>]*\bclass="([^"]*)"/.exec(html)?.[1];
}

function postTheme(app: AppServer, values: Record<string, string>) {
  return fetch(`${app.url}/action/set-theme`, {
    method: "POST",
    body: new URLSearchParams(values),
    redirect: "manual",
  });
}

describe("with SESSION_SECRET set", () => {
  let app: AppServer;
  let outbox: string;
  beforeAll(async () => {
    outbox = mkdtempSync(join(tmpdir(), "session-cookies-"));
    app = await startAppServer({ env: { SESSION_SECRET: SECRET, OUTBOX_DIR: outbox } });
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    rmSync(outbox, { recursive: true, force: true });
  });

  it("starts without the warning about a random secret", () => {
    expect(app.output()).not.toContain("SESSION_SECRET");
  });

  it("reads a theme cookie signed with the same secret elsewhere (another replica)", async () => {
    expect(await themeOf(app, await themeCookie(SECRET, "light"))).toBe("light");
  });

  // The theme cookie's secret was once a constant in the code.
  it("reads a theme cookie signed with the old built-in constant as no choice", async () => {
    expect(await themeOf(app, await themeCookie("portfolio-theme-cookie", "light"))).toBe("dark");
  });

  it("its own theme cookie works end to end", async () => {
    const response = await postTheme(app, { theme: "light" });
    expect(response.status).toBe(204);
    expect(await themeOf(app, response.headers.get("set-cookie")!.split(";")[0]!)).toBe("light");
  });

  // `Cookie: contact_flash=InNlbnQi` once made any page say "Message Sent!".
  it("shows 'Message Sent!' after a real post, and not for a forged flash cookie", async () => {
    const sent = await postForm(`${app.url}/?index`, VALID);
    expect(sent.status).toBe(303);
    const flash = sent.headers.get("set-cookie")!.split(";")[0]!;
    expect(await (await fetch(`${app.url}/`, { headers: { cookie: flash } })).text()).toContain(
      "Message Sent!",
    );

    const forged = await fetch(`${app.url}/`, { headers: { cookie: "contact_flash=InNlbnQi" } });
    expect(forged.status).toBe(200);
    expect(await forged.text()).not.toContain("Message Sent!");
  });

  // The off-site redirects, as curl sent them.
  it.each(OFF_SITE_REDIRECTS)("the no-JS theme form with redirectTo=%s goes home", async (redirectTo) => {
    const response = await postTheme(app, { theme: "dark", redirectTo });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/");
    expect(app.output()).not.toMatch(/TypeError|Invalid URL/);
  });
});

describe("without SESSION_SECRET", () => {
  let app: AppServer;
  beforeAll(async () => {
    app = await startAppServer();
  }, 60_000);
  afterAll(() => app?.stop());

  it("warns once that replicas will not share cookies", () => {
    expect(app.output().match(/SESSION_SECRET is not set: .*replicas do not share them/g)).toHaveLength(1);
  });

  it("does not read a cookie another replica signed", async () => {
    expect(await themeOf(app, await themeCookie(SECRET, "light"))).toBe("dark");
  });
});

it("refuses to start with a short SESSION_SECRET, naming it and not the value", async () => {
  const started = startAppServer({ env: { SESSION_SECRET: "short-Pa55w0rd" } });
  await expect(started).rejects.toThrow(/SESSION_SECRET must be at least 32 characters/);
  await expect(started).rejects.not.toThrow(/short-Pa55w0rd/);
}, 60_000);
