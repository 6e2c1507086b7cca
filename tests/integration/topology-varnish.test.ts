// A standard shared cache in front of two replicas, as a CDN would be
// (decision 027): Varnish with its built-in VCL. Cookieless pages are kept and
// shared; anything with a cookie, and every post, reaches a replica.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { BROWSER_HEADERS, VALID, formBody } from "../support/contact";
import { decode, raw, type Raw } from "../support/raw-http";
import { logged, tempOutbox } from "../support/topology";
import { until } from "../support/until";
import { startVarnish, type Varnish } from "../support/varnish";

describe("a shared cache in front (Varnish, built-in VCL)", () => {
  const SESSION_SECRET = "a-secret-the-cached-replicas-share-012345";
  let cached: AppServer[] = [];
  let varnish: Varnish;

  beforeAll(async () => {
    const env = {
      TRUST_PROXY: "1",
      SESSION_SECRET,
      OUTBOX_DIR: tempOutbox("varnish"),
    };
    cached = await Promise.all([startAppServer({ env }), startAppServer({ env })]);
    varnish = await startVarnish(cached.map((app) => app.port));
  }, 120_000);

  afterAll(async () => {
    await varnish?.stop();
    await Promise.all(cached.map((app) => app.stop()));
  });

  /** Requests for `/` the replicas answered, by their request logs. */
  const pageViews = () => cached.reduce((sum, app) => sum + logged(app, /^(GET|HEAD) \/ /), 0);
  const posts = () => cached.reduce((sum, app) => sum + logged(app, /^POST \/\?index /), 0);
  const get = (headers: Record<string, string> = {}) =>
    raw(`${varnish.url}/`, { headers: { ...BROWSER_HEADERS, "Accept-Encoding": "gzip", ...headers } });
  const contactPost = (values: Record<string, string>) =>
    raw(`${varnish.url}/?index`, {
      method: "POST",
      headers: {
        ...BROWSER_HEADERS,
        Origin: varnish.url,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: formBody(values).toString(),
    });
  const theme = (page: Raw) => /<html lang="en" class="(\w+)"/.exec(decode(page))?.[1];

  it("1,000 cookieless GETs of / reach the replicas once (one s-maxage window)", async () => {
    const before = pageViews();
    const answers: Raw[] = [];
    for (let round = 0; round < 50; round++) {
      answers.push(...(await Promise.all(Array.from({ length: 20 }, () => get()))));
    }
    expect(answers.every((page) => page.status === 200 && theme(page) === "dark")).toBe(true);
    expect(answers.every((page) => page.headers["set-cookie"] === undefined)).toBe(true);
    expect(new Set(answers.map((page) => page.body.toString("base64"))).size).toBe(1);
    await until(() => pageViews() - before >= 1, "the replica's log of the one GET that reached it");
    const reached = pageViews() - before;
    console.log(`shared cache: 1000 cookieless GETs of / reached the replicas ${reached} time(s)`);
    expect(reached).toBe(1);
  });

  it("answers If-None-Match with 304 from the cache", async () => {
    const chosen = await raw(`${varnish.url}/action/set-theme`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "theme=light",
    });
    const cookie = String(chosen.headers["set-cookie"]).split(";")[0]!;
    const page = await get();
    const before = pageViews();
    const again = await get({ "If-None-Match": String(page.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    // A GET with the theme cookie reaches a replica: once its line is logged, a 304 that had reached one would be too.
    await get({ Cookie: cookie });
    await until(() => pageViews() - before >= 1, "the replica's log of the GET with the theme cookie");
    expect(pageViews()).toBe(before + 1);
  });

  it("every GET with the theme cookie reaches a replica and gets that visitor's theme, nobody else does", async () => {
    const chosen = await raw(`${varnish.url}/action/set-theme`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "theme=light",
    });
    const cookie = String(chosen.headers["set-cookie"]).split(";")[0]!;
    const before = pageViews();
    for (let i = 0; i < 10; i++) {
      const light = await get({ Cookie: cookie });
      expect(theme(light)).toBe("light");
      expect(light.headers["cache-control"]).toBe("private, no-cache");
      const shared = await get();
      expect(theme(shared)).toBe("dark");
      expect(shared.headers["set-cookie"]).toBeUndefined();
    }
    await until(() => pageViews() - before >= 10, "the replicas' logs of the 10 GETs with the theme cookie");
    expect(pageViews() - before).toBe(10);
  });

  it("every POST reaches a replica; typed text, flash and cookies never reach another visitor", async () => {
    const before = posts();
    const typed = `typed-${Date.now()}`;
    const refused = await contactPost({
      ...VALID,
      message: `${typed} ${VALID.message}`,
      email: "not-an-address",
    });
    expect(refused.status).toBe(400);
    expect(decode(refused)).toContain(typed);
    const sent = await contactPost(VALID);
    expect(sent.status).toBe(303);
    const flash = String(sent.headers["set-cookie"]).split(";")[0]!;
    const flashed = await get({ Cookie: flash });
    expect(decode(flashed)).toContain("Message Sent!");
    await until(() => posts() - before >= 2, "the replicas' logs of the two posts");
    expect(posts() - before).toBe(2);

    for (let i = 0; i < 5; i++) {
      const shared = await get();
      expect(decode(shared)).not.toContain(typed);
      expect(decode(shared)).not.toContain("Message Sent!");
      expect(shared.headers["set-cookie"]).toBeUndefined();
    }
  });
});
