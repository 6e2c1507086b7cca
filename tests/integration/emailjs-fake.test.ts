// The fake itself, through its HTTP control endpoints as Playwright workers
// use it: answers per marker, requests filtered per marker, default untouched.
import { afterAll, beforeAll, expect, it } from "vitest";
import { fakeControl, startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";

let fake: EmailJsFake;
beforeAll(async () => {
  fake = await startEmailJsFake();
});
afterAll(() => fake.close());

const send = (body: unknown) =>
  fetch(`${fake.url}/api/v1.0/email/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

it("answers each marker as told, everything else with 200, and filters recorded requests by marker", async () => {
  const control = fakeControl(fake.url);
  await control.setMode({ kind: "status", status: 422, body: "nope" }, "marker-A");
  await control.setMode({ kind: "status", status: 200, delayMs: 150 }, "marker-B");

  const a = await send({ subject: "hello marker-A" });
  expect([a.status, await a.text()]).toEqual([422, "nope"]);
  const started = performance.now();
  const b = await send({ subject: "marker-B" });
  expect(b.status).toBe(200);
  expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  const other = await send({ subject: "unmarked" });
  expect([other.status, await other.text()]).toEqual([200, "OK"]);

  const recorded = await control.requests("marker-A");
  expect(recorded).toHaveLength(1);
  expect(recorded[0]).toMatchObject({
    method: "POST",
    path: "/api/v1.0/email/send",
    body: { subject: "hello marker-A" },
  });
  expect(recorded[0]!.headers["content-type"]).toBe("application/json");
  // Control requests are not recorded as sends.
  expect(fake.requests).toHaveLength(3);
});

it("a hanging answer never comes", async () => {
  fake.setMode({ kind: "hang" }, "marker-hang");
  const outcome = await fetch(`${fake.url}/api/v1.0/email/send`, {
    method: "POST",
    body: JSON.stringify({ subject: "marker-hang" }),
    signal: AbortSignal.timeout(300),
  }).then(
    (response) => `answered ${response.status}`,
    (error: Error) => error.name,
  );
  expect(outcome).toBe("TimeoutError");
});

it("sends the headers it is told to, and drops a connection once the request is read", async () => {
  fake.setMode({ kind: "status", status: 503, headers: { "Retry-After": "1" } }, "marker-retry");
  const busy = await send({ subject: "marker-retry" });
  expect([busy.status, busy.headers.get("retry-after")]).toEqual([503, "1"]);

  fake.setMode({ kind: "drop" }, "marker-drop");
  const dropped = await send({ subject: "marker-drop" }).then(
    (response) => `answered ${response.status}`,
    (error: Error & { cause?: { code?: string } }) => error.cause?.code,
  );
  expect(dropped).toBe("UND_ERR_SOCKET");
  // The dropped request arrived whole: the provider may have acted on it.
  expect(fake.requests.at(-1)?.body).toEqual({ subject: "marker-drop" });
});
