// How the action behaves when the provider misbehaves: final 4xx, retried
// 5xx and network failures, timeouts, and the retry schedule itself.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_RETRY, type RetryOptions } from "~/contact/emailjs.server";
import { startEmailJsFake, type EmailJsFake } from "../fakes/emailjs-fake";
// A free port has nothing listening: "connection refused".
import { freePort as closedPort } from "../support/free-port";
import {
  FAST_RETRY,
  VALID,
  expectFailure,
  expectRedirect,
  formRequest,
  relayEnv,
  setupAction,
} from "../support/contact";

let fake: EmailJsFake;
beforeAll(async () => {
  fake = await startEmailJsFake();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

describe("provider answers", () => {
  it.each([400, 401, 403, 412, 422, 429])(
    "a %i is final: 502, one attempt, the typed text kept",
    async (status) => {
      fake.setMode({ kind: "status", status, body: "The Public Key is invalid" });
      const { run, events } = setupAction(relayEnv(fake.url));
      const failure = expectFailure(await run(formRequest(VALID)));
      expect(failure.status).toBe(502);
      expect(failure.data).toEqual({ ok: false, status: 502, reason: "upstream_rejected", fields: VALID });
      expect(fake.requests).toHaveLength(1);
      expect(events).toEqual([
        { outcome: "accepted", transport: "relay" },
        {
          outcome: "relayed",
          ok: false,
          upstreamStatus: status,
          attempts: 1,
          durationMs: expect.any(Number),
        },
        { outcome: "refused", status: 502, reason: "upstream_rejected" },
      ]);
    },
  );

  it("any 2xx is success", async () => {
    fake.setMode({ kind: "status", status: 202, body: "" });
    const { run } = setupAction(relayEnv(fake.url));
    expect(expectRedirect(await run(formRequest(VALID))).status).toBe(303);
    expect(fake.requests).toHaveLength(1);
  });

  it("5xx then success: retried, and the visitor sees success", async () => {
    fake.queue({ kind: "status", status: 503 }, { kind: "status", status: 500 });
    const { run, events } = setupAction(relayEnv(fake.url));
    expectRedirect(await run(formRequest(VALID)));
    expect(fake.requests).toHaveLength(3);
    // Every attempt sends the same body.
    expect(new Set(fake.requests.map((request) => request.rawBody)).size).toBe(1);
    expect(events[1]).toMatchObject({ outcome: "relayed", ok: true, upstreamStatus: 200, attempts: 3 });
  });

  it("5xx until the deadline: 502 after the attempts the schedule allows, waits doubling", async () => {
    fake.setMode({ kind: "status", status: 503 });
    const retry = { attemptTimeoutMs: 500, initialBackoffMs: 40, deadlineMs: 400 };
    const { run, events } = setupAction(relayEnv(fake.url), { retry });
    const failure = expectFailure(await run(formRequest(VALID)));
    expect(failure.status).toBe(502);
    expect(failure.data.reason).toBe("upstream_error");
    // Pauses of 40, 80, 160 ms fit before 400 ms on a quiet machine (4
    // attempts); a busy one may fit one pause less. The next (320) never fits.
    const attempts = fake.requests.length;
    expect(attempts).toBeGreaterThanOrEqual(3);
    expect(attempts).toBeLessThanOrEqual(4);
    const gaps = fake.requests.slice(1).map((request, i) => request.at - fake.requests[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(35);
    expect(gaps[1]).toBeGreaterThanOrEqual(75);
    if (attempts === 4) expect(gaps[2]).toBeGreaterThanOrEqual(155);
    expect(events[1]).toMatchObject({ outcome: "relayed", ok: false, upstreamStatus: 503, attempts });
  });

  it("a provider that never answers: 504 within the deadline, every attempt bounded", async () => {
    fake.setMode({ kind: "hang" });
    const { run, events } = setupAction(relayEnv(fake.url));
    const started = performance.now();
    const failure = expectFailure(await run(formRequest(VALID)));
    const took = performance.now() - started;
    expect(failure.status).toBe(504);
    expect(failure.data).toEqual({ ok: false, status: 504, reason: "upstream_timeout", fields: VALID });
    expect(took).toBeLessThan(FAST_RETRY.deadlineMs + 500);
    // 300 ms attempts with 20 and 40 ms pauses, the third cut at 1 s.
    expect(fake.requests).toHaveLength(3);
    expect(events[1]).toMatchObject({ outcome: "relayed", ok: false, upstreamStatus: 0, attempts: 3 });
  });

  it("the last attempt is cut short by the deadline, not skipped", async () => {
    fake.setMode({ kind: "hang" });
    const retry = { attemptTimeoutMs: 300, initialBackoffMs: 50, deadlineMs: 500 };
    const { run } = setupAction(relayEnv(fake.url), { retry });
    const started = performance.now();
    expect(expectFailure(await run(formRequest(VALID))).status).toBe(504);
    expect(performance.now() - started).toBeLessThan(retry.deadlineMs + 400);
    expect(fake.requests).toHaveLength(2);
  });

  it("a slow answer inside the attempt timeout is still a success", async () => {
    fake.setMode({ kind: "status", status: 200, delayMs: 100 });
    const { run } = setupAction(relayEnv(fake.url));
    expectRedirect(await run(formRequest(VALID)));
    expect(fake.requests).toHaveLength(1);
  });

  it("connection refused: 502 upstream_unreachable after retries", async () => {
    const port = await closedPort();
    const { run, events } = setupAction(relayEnv(`http://127.0.0.1:${port}`));
    const failure = expectFailure(await run(formRequest(VALID)));
    expect(failure.status).toBe(502);
    expect(failure.data).toEqual({ ok: false, status: 502, reason: "upstream_unreachable", fields: VALID });
    const relayed = events.find((event) => event.outcome === "relayed");
    expect(relayed).toMatchObject({ ok: false, upstreamStatus: 0 });
    expect((relayed as { attempts: number }).attempts).toBeGreaterThan(1);
  });
});

/**
 * The pauses before each retry when every attempt uses its whole timeout:
 * the worst case, which is also what the deadline must bound.
 */
function worstCaseBackoffs(options: RetryOptions = DEFAULT_RETRY): number[] {
  const pauses: number[] = [];
  let elapsed = options.attemptTimeoutMs;
  let pause = options.initialBackoffMs;
  while (elapsed + pause < options.deadlineMs) {
    pauses.push(pause);
    elapsed += pause + options.attemptTimeoutMs;
    pause *= 2;
  }
  return pauses;
}

describe("the real retry defaults", () => {
  it("attempts of at most 3 s, pauses of 1 s then 2 s, all inside 10 s", () => {
    expect(DEFAULT_RETRY).toEqual({ attemptTimeoutMs: 3_000, initialBackoffMs: 1_000, deadlineMs: 10_000 });
    expect(worstCaseBackoffs()).toEqual([1_000, 2_000]);
  });
});
