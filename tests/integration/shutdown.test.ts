// SIGTERM on the production server, as `docker stop` sends it: no new
// connections, every request that had fully arrived gets its answer (even
// with the provider hanging), connections holding no such request are closed
// at once, and the exit is 0.
import { request } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { startAppServer } from "../support/app-server";
import { VALID, relayEnv, postForm } from "../support/contact";
import { until } from "../support/until";

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

describe("SIGTERM", () => {
  it("stops accepting, completes the in-flight submission, and exits 0", async () => {
    fake.setMode({ kind: "status", status: 200, delayMs: 1_500 });
    const app = await startAppServer({ env: relayEnv(fake.url) });

    let settled = false;
    const submission = post(app.url).finally(() => (settled = true));
    // The provider has the message and is taking its time: the post is in flight.
    await until(() => fake.requests.length === 1, "the relay to reach the provider");

    const exit = app.stop();
    await until(
      async () => (await probe(app.url)) === "ECONNREFUSED",
      "the server to refuse new connections",
    );
    expect(settled, "the submission is still in flight when new connections are refused").toBe(false);

    const response = await submission;
    expect(response.status).toBe(303);
    expect(response.headers.get("Location")).toBe("/#contact-outcome");
    expect(await exit).toBe(0);
    expect(fake.requests).toHaveLength(1);
    expect(app.output()).toContain("[shutdown] SIGTERM");
  }, 30_000);

  it("answers all 20 posts in flight while the provider hangs, then exits 0", async () => {
    fake.reset();
    fake.setMode({ kind: "hang" });
    const app = await startAppServer({ env: relayEnv(fake.url, { CONTACT_RATE_LIMIT_MAX: "100" }) });
    // Twenty different messages: identical ones would be one message, mailed once.
    const answers = Array.from({ length: 20 }, (_, i) =>
      post(app.url, `In flight ${i}`).then(
        (response) => response.status,
        (error: Error) => `no answer: ${error.message}`,
      ),
    );
    await until(() => fake.requests.length >= 20, "all 20 posts to reach the provider");

    const exit = app.stop();
    const statuses = await Promise.all(answers);
    // Each gets the error answer (the provider never replied), none is cut.
    expect(
      statuses.every((status) => typeof status === "number" && status >= 500 && status < 600),
      String(statuses),
    ).toBe(true);
    expect(await exit).toBe(0);
    expect(app.output()).not.toContain("still open");
  }, 40_000);

  it("closes idle and half-sent connections at once instead of waiting for them", async () => {
    const app = await startAppServer({ env: relayEnv(fake.url) });
    const halfHeaders = await openSocket(app.port, "POST /?index HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const halfBody = await openSocket(
      app.port,
      "POST /?index HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 500\r\n\r\nname=Ada",
    );
    const idle = await openSocket(app.port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await until(() => idle.received.includes("HTTP/1.1 200"), "the keep-alive answer");

    expect(await app.stop()).toBe(0);
    for (const socket of [halfHeaders, halfBody, idle]) await socket.closed;
    expect(app.output()).toContain("every request answered");
  }, 30_000);
});

const post = (url: string, subject: string = VALID.subject) =>
  postForm(`${url}/?index`, { ...VALID, subject });

/** A raw connection that has sent `text`; `closed` settles when the server closes it. */
async function openSocket(port: number, text: string) {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  const state = {
    received: "",
    closed: new Promise<void>((resolve) => socket.once("close", () => resolve())),
  };
  socket.on("data", (chunk: Buffer) => (state.received += chunk.toString()));
  socket.write(text);
  return state;
}
