// SIGTERM on the production server, as `docker stop` sends it: no new
// connections, the in-flight contact submission (held by a slow provider)
// completes normally, then exit 0 within the 10 s bound. A request that never
// completes cannot hold the process past that bound.
import { request } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHUTDOWN_GRACE_MS } from "~/lib/graceful-shutdown.server";
import { startEmailJsFake, type EmailJsFake } from "../fakes/emailjs-fake";
import { startAppServer } from "../support/app-server";
import { BROWSER_HEADERS, VALID, formBody, relayEnv } from "../support/contact";

let fake: EmailJsFake;
beforeAll(async () => {
  fake = await startEmailJsFake();
});
afterAll(() => fake?.close());

/** Resolves with the error code of a fresh connection's request, or "answered". */
function probe(url: string): Promise<string> {
  return new Promise((resolve) => {
    const req = request(`${url}/healthz`, { agent: false }, (res) => {
      res.resume();
      resolve("answered");
    });
    req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

async function until(condition: () => boolean | Promise<boolean>, what: string) {
  for (let tries = 0; !(await condition()); tries++) {
    if (tries > 200) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("SIGTERM", () => {
  it("stops accepting, completes the in-flight submission, and exits 0 within the bound", async () => {
    fake.setMode({ kind: "status", status: 200, delayMs: 1_500 });
    const app = await startAppServer({ env: relayEnv(fake.url) });

    let settled = false;
    const submission = fetch(`${app.url}/?index`, {
      method: "POST",
      headers: { ...BROWSER_HEADERS, "Content-Type": "application/x-www-form-urlencoded" },
      body: formBody(VALID),
      redirect: "manual",
    }).finally(() => (settled = true));
    // The provider has the message and is taking its time: the post is in flight.
    await until(() => fake.requests.length === 1, "the relay to reach the provider");

    const started = performance.now();
    const exit = app.stop();
    await until(
      async () => (await probe(app.url)) === "ECONNREFUSED",
      "the server to refuse new connections",
    );
    expect(settled, "the submission is still in flight when new connections are refused").toBe(false);

    const response = await submission;
    expect(response.status).toBe(303);
    expect(response.headers.get("Location")).toBe("/#contact");
    expect(await exit).toBe(0);
    expect(performance.now() - started).toBeLessThan(SHUTDOWN_GRACE_MS);
    expect(fake.requests).toHaveLength(1);
    expect(app.output()).toContain("[shutdown] SIGTERM");
  }, 30_000);

  it("exits after the bound when a request never completes", async () => {
    const app = await startAppServer({ env: relayEnv(fake.url) });
    // A client that stalls halfway through its request headers.
    const stalled = connect(app.port, "127.0.0.1");
    await new Promise<void>((resolve) => stalled.once("connect", resolve));
    stalled.write("POST /?index HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    stalled.on("error", () => {});

    const started = performance.now();
    expect(await app.stop()).toBe(1);
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(SHUTDOWN_GRACE_MS - 100);
    expect(took).toBeLessThan(SHUTDOWN_GRACE_MS + 5_000);
    expect(app.output()).toContain("requests still open after");
    stalled.destroy();
  }, 30_000);
});
