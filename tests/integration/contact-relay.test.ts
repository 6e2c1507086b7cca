// How the action behaves when the provider misbehaves: what is retried (only
// what cannot have been delivered), what the visitor gets, what is kept in
// OUTBOX_DIR/undelivered, and that the visitor's quota is not used up.
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { outcomeText } from "~/contact/contract";
import type { ContactActionOutcome } from "~/contact/post.server";
import { STORED_PER_CLIENT } from "~/contact/limits.server";
import { RETRIES_WITHIN_A_REQUEST, parseRetryAfter, type RetryOptions } from "~/contact/emailjs.server";
import { storeUndelivered, undeliveredFileName, UNDELIVERED_LIMIT } from "~/contact/store.server";
import { site } from "~/content/site";
import { useFakeAndOutbox } from "../support/fake-and-outbox";
// A free port has nothing listening: "connection refused".
import { freePort as closedPort } from "../support/free-port";
import {
  VALID_TEMPLATE_PARAMS,
  FAST_RETRY,
  VALID,
  expectFailure,
  expectRedirect,
  formRequest,
  relayEnv,
  setupAction,
} from "../support/contact";

const PRIVATE_KEY = "private_test_KEY_000";

const scratch = useFakeAndOutbox("relay-test-");

const undeliveredDir = () => path.join(scratch.outbox, "undelivered");

/** The action against `apiUrl`, one message per client allowed, undelivered mail kept in this test's folder. */
function relay(apiUrl = scratch.fake.url, retry: RetryOptions = FAST_RETRY) {
  return setupAction(
    relayEnv(apiUrl, {
      OUTBOX_DIR: scratch.outbox,
      EMAILJS_PRIVATE_KEY: PRIVATE_KEY,
      CONTACT_RATE_LIMIT_MAX: "1",
    }),
    { retry },
  );
}

/** Every file in the undelivered folder: name, permissions, raw text and parsed content. */
async function stored() {
  const names = await readdir(undeliveredDir()).catch(() => [] as string[]);
  return Promise.all(
    names.sort().map(async (name) => {
      const file = path.join(undeliveredDir(), name);
      const raw = await readFile(file, "utf8");
      return { name, mode: (await stat(file)).mode & 0o777, raw, entry: JSON.parse(raw) as unknown };
    }),
  );
}

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Exactly one kept message, with these flags, holding the body without ids or keys. */
async function expectKept(flags: { failure: string; upstreamStatus: number; uncertain: boolean }) {
  const files = await stored();
  expect(files).toHaveLength(1);
  const [file] = files;
  expect(file!.name).toMatch(/^[0-9a-f]{32}\.json$/);
  expect(file!.mode).toBe(0o600);
  expect((await stat(undeliveredDir())).mode & 0o077).toBe(0);
  expect(file!.entry).toEqual({
    lib_version: "4.4.1",
    template_params: VALID_TEMPLATE_PARAMS,
    time: expect.stringMatching(ISO_TIME),
    for: flags.uncertain ? "uncertain" : "provider",
    ...flags,
    // The give-up clock starts at the provider's failure; the network is the client's (decision 052).
    failedAt: expect.stringMatching(ISO_TIME),
    network: "unknown",
    // A send that may have arrived spent its unit of the budget; its redelivery spends none.
    ...(flags.uncertain ? { counted: true } : {}),
  });
  expect(file!.raw).not.toMatch(/user_id|service_id|template_id|accessToken|pk_test|PRIVATE|KEY_000/);
  return file!;
}

/** The quota was given back: the next message from the same client is not refused with 429. */
async function expectQuotaUnused(run: (request: Request) => Promise<ContactActionOutcome>) {
  scratch.fake.setMode({ kind: "status", status: 200 }, "quota-probe");
  expectRedirect(await run(formRequest({ ...VALID, message: "quota-probe" })));
}

describe("final failures: one attempt, the visitor's error, the message kept", () => {
  // A refusal of the account (412, or words naming the keys) has its own tests: contact-provider-limits.test.ts.
  it.each([400, 401, 403, 422])(
    "a %i about this message alone: 502 refused_by_provider, held for the owner with the provider's words",
    async (status) => {
      scratch.fake.setMode({ kind: "status", status, body: "Bad request" });
      const { run, events } = relay();
      const failure = expectFailure(await run(formRequest(VALID)));
      expect(failure.status).toBe(502);
      expect(failure.data).toEqual({ ok: false, status: 502, reason: "refused_by_provider", fields: VALID });
      expect(scratch.fake.requests).toHaveLength(1);
      const [file] = await stored();
      expect(file!.entry).toMatchObject({
        for: "refused_by_provider",
        upstreamStatus: status,
        uncertain: false,
        providerText: "Bad request",
        gaveUpAt: expect.stringMatching(ISO_TIME),
      });
      expect(events).toEqual([
        { outcome: "accepted", transport: "relay" },
        {
          outcome: "relayed",
          ok: false,
          upstreamStatus: status,
          attempts: 1,
          durationMs: expect.any(Number),
          providerText: "Bad request",
        },
        { outcome: "kept", for: "refused_by_provider", stored: "new" },
        { outcome: "refused", status: 502, reason: "refused_by_provider" },
      ]);
      await expectQuotaUnused(run);
    },
  );

  it("a 429 without Retry-After is final and certain", async () => {
    scratch.fake.setMode({ kind: "status", status: 429 });
    const { run } = relay();
    expect(expectFailure(await run(formRequest(VALID))).data.reason).toBe("upstream_rejected");
    expect(scratch.fake.requests).toHaveLength(1);
    await expectKept({ failure: "upstream_rejected", upstreamStatus: 429, uncertain: false });
  });

  it.each([500, 502, 503])(
    "a %i without Retry-After is final and uncertain: no second try",
    async (status) => {
      scratch.fake.setMode({ kind: "status", status });
      const { run } = relay();
      const failure = expectFailure(await run(formRequest(VALID)));
      expect(failure.data).toEqual({ ok: false, status: 502, reason: "upstream_error", fields: VALID });
      expect(scratch.fake.requests).toHaveLength(1);
      await expectKept({ failure: "upstream_error", upstreamStatus: status, uncertain: true });
      await expectQuotaUnused(run);
    },
  );

  it("a 503 whose Retry-After is over the bound is final", async () => {
    scratch.fake.setMode({ kind: "status", status: 503, headers: { "Retry-After": "3" } });
    const { run } = relay();
    expect(expectFailure(await run(formRequest(VALID))).data.reason).toBe("upstream_error");
    expect(scratch.fake.requests).toHaveLength(1);
    await expectKept({ failure: "upstream_error", upstreamStatus: 503, uncertain: true });
  });

  it("no answer in time: 504 after one attempt, kept as uncertain", async () => {
    scratch.fake.setMode({ kind: "hang" });
    const { run, events } = relay();
    const failure = expectFailure(await run(formRequest(VALID)));
    expect(failure.data).toEqual({ ok: false, status: 504, reason: "upstream_timeout", fields: VALID });
    expect(scratch.fake.requests).toHaveLength(1);
    expect(events[1]).toMatchObject({ outcome: "relayed", ok: false, upstreamStatus: 0, attempts: 1 });
    await expectKept({ failure: "upstream_timeout", upstreamStatus: 0, uncertain: true });
    await expectQuotaUnused(run);
  });

  it("the connection dropped after the request was read: 502 after one attempt, uncertain", async () => {
    scratch.fake.setMode({ kind: "drop" });
    const { run } = relay();
    const failure = expectFailure(await run(formRequest(VALID)));
    expect(failure.data).toEqual({ ok: false, status: 502, reason: "upstream_dropped", fields: VALID });
    expect(scratch.fake.requests).toHaveLength(1);
    await expectKept({ failure: "upstream_dropped", upstreamStatus: 0, uncertain: true });
    await expectQuotaUnused(run);
  });
});

describe("retried: only what the provider cannot have received", () => {
  it("connection refused: every attempt the policy allows, then kept as certainly not delivered", async () => {
    const { run, events } = relay(`http://127.0.0.1:${await closedPort()}`);
    const failure = expectFailure(await run(formRequest(VALID)));
    expect(failure.data).toEqual({ ok: false, status: 502, reason: "upstream_unreachable", fields: VALID });
    expect(events[1]).toMatchObject({ outcome: "relayed", ok: false, upstreamStatus: 0, attempts: 3 });
    await expectKept({ failure: "upstream_unreachable", upstreamStatus: 0, uncertain: false });
    // Its one message per client was given back: the next one is tried, not refused with 429.
    const next = expectFailure(await run(formRequest({ ...VALID, subject: "Next" })));
    expect(next.data.reason).toBe("upstream_unreachable");
  });

  it("a 503 with Retry-After: 1 waits that second, then the message goes through once", async () => {
    scratch.fake.queue({ kind: "status", status: 503, headers: { "Retry-After": "1" } });
    const { run, events } = relay();
    expectRedirect(await run(formRequest(VALID)));
    expect(scratch.fake.requests).toHaveLength(2);
    expect(scratch.fake.requests[1]!.at - scratch.fake.requests[0]!.at).toBeGreaterThanOrEqual(950);
    expect(scratch.fake.requests[0]!.rawBody).toBe(scratch.fake.requests[1]!.rawBody);
    expect(events[1]).toMatchObject({ outcome: "relayed", ok: true, upstreamStatus: 200, attempts: 2 });
    expect(await stored()).toEqual([]);
  });

  it("a 429 with Retry-After: 0 is retried at once", async () => {
    scratch.fake.queue({ kind: "status", status: 429, headers: { "Retry-After": "0" } });
    const { run } = relay();
    expectRedirect(await run(formRequest(VALID)));
    expect(scratch.fake.requests).toHaveLength(2);
  });

  it("Retry-After that would pass the deadline is not waited for", async () => {
    scratch.fake.setMode({ kind: "status", status: 503, headers: { "Retry-After": "1" } });
    const { run } = relay(scratch.fake.url, { ...FAST_RETRY, deadlineMs: 1_000 });
    expect(expectFailure(await run(formRequest(VALID))).data.reason).toBe("upstream_error");
    expect(scratch.fake.requests).toHaveLength(1);
    await expectKept({ failure: "upstream_error", upstreamStatus: 503, uncertain: true });
  });

  it("a provider that keeps asking to retry gets at most maxAttempts requests", async () => {
    scratch.fake.setMode({ kind: "status", status: 503, headers: { "Retry-After": "0" } });
    const { run } = relay();
    expect(expectFailure(await run(formRequest(VALID))).status).toBe(502);
    expect(scratch.fake.requests).toHaveLength(FAST_RETRY.maxAttempts);
    await expectKept({ failure: "upstream_error", upstreamStatus: 503, uncertain: true });
  });
});

describe("an identical re-post", () => {
  it("is answered from the kept copy: the provider is not called again, and it uses the quota", async () => {
    scratch.fake.setMode({ kind: "status", status: 500 });
    const { run, events } = relay();
    expectFailure(await run(formRequest(VALID)));
    const first = await expectKept({ failure: "upstream_error", upstreamStatus: 500, uncertain: true });

    // The provider is back, but the message already waits: the redelivery sends it, once.
    scratch.fake.setMode({ kind: "status", status: 200 });
    const again = expectFailure(await run(formRequest(VALID)));
    expect(again).toMatchObject({ status: 502, data: { reason: "upstream_error" } });
    expect(scratch.fake.requests).toHaveLength(1);
    const still = await expectKept({ failure: "upstream_error", upstreamStatus: 500, uncertain: true });
    expect(still.name).toBe(first.name);
    expect(events).toContainEqual({ outcome: "already_kept", for: "uncertain" });

    // The first, newly kept, gave its unit back; the re-post did not (CONTACT_RATE_LIMIT_MAX is 1).
    const next = expectFailure(await run(formRequest({ ...VALID, subject: "Another" })));
    expect(next.data.reason).toBe("rate_limited");
  });

  it("a different subject is a different message: a second file", async () => {
    scratch.fake.setMode({ kind: "status", status: 500 });
    const { run } = relay();
    expectFailure(await run(formRequest(VALID)));
    expectFailure(await run(formRequest({ ...VALID, subject: "Engines, again" })));
    expect(await stored()).toHaveLength(2);
  });
});

/** `count` kept messages in the folder: only messages take its places (decision 052). */
async function keptFillers(count: number) {
  const dir = undeliveredDir();
  await mkdir(dir, { recursive: true });
  await Promise.all(
    Array.from({ length: count }, (_, i) => {
      const params = { ...VALID_TEMPLATE_PARAMS, subject: `filler ${i}` };
      const entry = { lib_version: "4.4.1", template_params: params, time: new Date().toISOString() };
      const kept = {
        ...entry,
        for: "provider",
        failure: "upstream_error",
        upstreamStatus: 500,
        uncertain: false,
      };
      return writeFile(path.join(dir, undeliveredFileName(params)), JSON.stringify(kept));
    }),
  );
}

describe("the undelivered folder", () => {
  it("full: the message is not kept, the visitor is told so and where to write, and the log says so", async () => {
    const dir = undeliveredDir();
    await keptFillers(UNDELIVERED_LIMIT);
    scratch.fake.setMode({ kind: "status", status: 500 });
    const { run, events } = relay();
    const failure = expectFailure(await run(formRequest(VALID)));
    expect(failure.data).toEqual({ ok: false, status: 503, reason: "not_kept", fields: VALID });
    expect(outcomeText(failure.data).detail).toContain(`write to me at ${site.contact.email}`);
    expect(await readdir(dir)).toHaveLength(UNDELIVERED_LIMIT);
    expect(events).toContainEqual({
      outcome: "kept",
      for: "uncertain",
      failure: "upstream_error",
      uncertain: true,
      stored: "full",
    });
  });

  it("cannot be written: the visitor is told it was not kept, and the log says so", async () => {
    await writeFile(path.join(scratch.outbox, "blocker"), "");
    scratch.fake.setMode({ kind: "status", status: 500 });
    const { run, events } = setupAction(
      relayEnv(scratch.fake.url, { OUTBOX_DIR: path.join(scratch.outbox, "blocker") }),
    );
    const failure = expectFailure(await run(formRequest(VALID)));
    expect(failure.data).toEqual({ ok: false, status: 503, reason: "not_kept", fields: VALID });
    expect(events).toContainEqual({
      outcome: "kept",
      for: "uncertain",
      failure: "upstream_error",
      uncertain: true,
      stored: "failed",
    });
  });

  it("a write that fails part-way (a full disk) leaves no part file behind", async () => {
    const dir = undeliveredDir();
    await mkdir(dir, { recursive: true });
    // The message's own name is taken by a folder: the rename fails after the part was written.
    const params = { ...VALID_TEMPLATE_PARAMS };
    await mkdir(path.join(dir, undeliveredFileName(params), "x"), { recursive: true });
    scratch.fake.setMode({ kind: "status", status: 500 });
    const { run } = relay();
    expect(expectFailure(await run(formRequest(VALID))).data).toMatchObject({
      status: 503,
      reason: "not_kept",
    });
    expect((await readdir(dir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  // Failures once gave the quota back, so one client filled the folder.
  it("one client may leave a few messages; past that they are not kept and count against its limit", async () => {
    scratch.fake.setMode({ kind: "status", status: 500 });
    const { run, events } = relay();
    const outcomes = [];
    for (let i = 0; i < STORED_PER_CLIENT.max + 3; i++) {
      const answer = await run(formRequest({ ...VALID, subject: `flood ${i}` }));
      outcomes.push(expectFailure(answer).data.reason);
    }
    // relay() allows one message per client: the one not kept uses it up.
    expect(outcomes).toEqual([
      ...Array(STORED_PER_CLIENT.max).fill("upstream_error"),
      "not_kept",
      "rate_limited",
      "rate_limited",
    ]);
    expect(await readdir(undeliveredDir())).toHaveLength(STORED_PER_CLIENT.max);
    expect(events.filter((event) => event.outcome === "kept" && event.stored === "client_full")).toHaveLength(
      1,
    );
  });

  it("holds its limit under concurrency: 60 at once into a folder of 995 leave 1,000", async () => {
    const dir = undeliveredDir();
    await keptFillers(UNDELIVERED_LIMIT - 5);
    const failure = {
      for: "uncertain" as const,
      failure: "upstream_error" as const,
      upstreamStatus: 500,
      uncertain: true,
    };
    const outcomes = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        storeUndelivered(dir, { ...VALID_TEMPLATE_PARAMS, subject: `concurrent ${i}` }, failure),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === "new")).toHaveLength(5);
    expect(outcomes.filter((outcome) => outcome === "full")).toHaveLength(55);
    expect((await readdir(dir)).filter((name) => name.endsWith(".json"))).toHaveLength(UNDELIVERED_LIMIT);
  }, 30_000);
});

// The body of the provider's answer once decided too much.
describe("the provider's answer: the status decides, the body is read briefly and bounded", () => {
  it("a 200 whose body comes later than the attempt's time is a success, at once", async () => {
    scratch.fake.setMode({ kind: "streamed", status: 200, bytes: 2, overMs: 5_000 });
    const { run } = relay(scratch.fake.url, { ...FAST_RETRY, attemptTimeoutMs: 2_000, deadlineMs: 3_000 });
    const started = performance.now();
    expect(expectRedirect(await run(formRequest(VALID))).status).toBe(303);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(await stored()).toEqual([]);
  });

  it.each([301, 302, 307, 308])(
    "a %i is not followed: 502 upstream_rejected with its status, kept as certainly not delivered",
    async (status) => {
      scratch.fake.setMode({
        kind: "status",
        status,
        headers: { Location: `${scratch.fake.url}/elsewhere` },
      });
      const { run, events } = relay();
      const failure = expectFailure(await run(formRequest(VALID)));
      expect(failure.data).toMatchObject({ status: 502, reason: "upstream_rejected" });
      expect(scratch.fake.requests.map((request) => request.path)).toEqual(["/api/v1.0/email/send"]);
      await expectKept({ failure: "upstream_rejected", upstreamStatus: status, uncertain: false });
      expect(events).toContainEqual(expect.objectContaining({ outcome: "relayed", upstreamStatus: status }));
    },
  );
});

describe("successes", () => {
  it("any 2xx is success, one attempt, nothing kept", async () => {
    scratch.fake.setMode({ kind: "status", status: 202, body: "" });
    const { run } = relay();
    expect(expectRedirect(await run(formRequest(VALID))).status).toBe(303);
    expect(scratch.fake.requests).toHaveLength(1);
    expect(await stored()).toEqual([]);
  });

  it("a slow answer inside the attempt timeout is still a success", async () => {
    scratch.fake.setMode({ kind: "status", status: 200, delayMs: 100 });
    const { run } = relay();
    expectRedirect(await run(formRequest(VALID)));
    expect(scratch.fake.requests).toHaveLength(1);
  });
});

describe("Retry-After", () => {
  it("reads delta-seconds and HTTP dates, and nothing else", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("2", now)).toBe(2_000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:01 GMT", now)).toBe(1_000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now)).toBe(0);
    for (const value of [null, "", "soon", "-1", "1.5"]) expect(parseRetryAfter(value, now)).toBeNull();
  });
});

describe("the real retry defaults", () => {
  it("at most 3 attempts of at most 3 s, Retry-After up to 2 s, all inside 10 s", () => {
    expect(RETRIES_WITHIN_A_REQUEST).toEqual({
      attemptTimeoutMs: 3_000,
      initialBackoffMs: 1_000,
      maxRetryAfterMs: 2_000,
      maxAttempts: 3,
      deadlineMs: 10_000,
    });
  });
});
