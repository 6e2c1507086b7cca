// How the action behaves when the provider misbehaves: what is retried (only
// what cannot have been delivered), what the visitor gets, what is kept in the
// SQLite store in OUTBOX_DIR (outbox.sqlite), and that the visitor's quota is not used up.
import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { outcomeText } from "~/contact/form/contract";
import type { ContactActionOutcome } from "~/contact/action/contact-action.server";
import type { ContactEvent } from "~/contact/events.server";
import { STORED_PER_CLIENT } from "~/contact/guard/limits.server";
import {
  RETRIES_WITHIN_A_REQUEST,
  parseRetryAfter,
  type RetryOptions,
} from "~/contact/delivery/emailjs.server";
import { DATABASE_FILE } from "~/contact/store/sqlite.server";
import { messageId, type Message } from "~/contact/rules/message.server";
import { afterAttempt, KEPT_LIMIT, received } from "~/contact/rules/rulebook.server";
import { site } from "~/content/site";
import { useFakeAndOutbox } from "../support/fake-and-outbox";
// A free port has nothing listening: "connection refused".
import { freePort as closedPort } from "../support/free-port";
import { keptIn, withStore } from "../support/store";
import {
  PROVIDER_FAILED,
  VALID_TEMPLATE_PARAMS,
  FAST_RETRY,
  VALID,
  expectFailure,
  expectRedirect,
  formRequest,
  relayEnv,
  setupAction,
  testConfig,
} from "../support/contact";

const PRIVATE_KEY = "private_test_KEY_000";

const scratch = useFakeAndOutbox("relay-test-");

/** OUTBOX_DIR: a folder the app creates itself, so its permissions are the app's. */
const outboxDir = () => path.join(scratch.outbox, "outbox");

/** The action against `apiUrl`, one message per client allowed, undelivered mail kept in this test's store. */
function relay(apiUrl = scratch.fake.url, retry: RetryOptions = FAST_RETRY) {
  return setupAction(
    relayEnv(apiUrl, {
      OUTBOX_DIR: outboxDir(),
      EMAILJS_PRIVATE_KEY: PRIVATE_KEY,
      CONTACT_RATE_LIMIT_MAX: "1",
    }),
    { retry },
  );
}

/** Every kept message in the store the app made, oldest first, read as the owner's CLI reads it. */
async function stored(): Promise<Message[]> {
  expect(await exists(path.join(outboxDir(), DATABASE_FILE))).toBe(true);
  return await keptIn(outboxDir());
}

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

/** The store's file and, when present, its write-ahead log and index: each owner-only, in an owner-only folder. */
async function expectOwnerOnly() {
  expect((await stat(outboxDir())).mode & 0o777).toBe(0o700);
  const file = path.join(outboxDir(), DATABASE_FILE);
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  for (const extra of [`${file}-wal`, `${file}-shm`])
    if (await exists(extra)) expect((await stat(extra)).mode & 0o777).toBe(0o600);
}

/** The raw bytes of the store's file and of its write-ahead log (where a fresh write lives until a checkpoint). */
async function storeBytes(): Promise<string> {
  const file = path.join(outboxDir(), DATABASE_FILE);
  const parts = [await readFile(file, "latin1")];
  if (await exists(`${file}-wal`)) parts.push(await readFile(`${file}-wal`, "latin1"));
  return parts.join("\n");
}

const NO_IDS_OR_KEYS =
  /user_id|service_id|template_id|accessToken|pk_test|PUBLIC_123|service_test|template_test|PRIVATE|KEY_000/;

/**
 * Exactly one kept message, waiting on the provider with these flags, holding the body without ids or keys,
 * in an owner-only file; the log says it was kept and with which status the provider answered.
 */
async function expectKept(
  events: ContactEvent[],
  flags: { failure: string; upstreamStatus: number; uncertain: boolean },
) {
  // Before the test opens the store itself: opening it sets the file's mode.
  await expectOwnerOnly();
  const bytes = await storeBytes();
  // What is read holds the message (so the check below sees what is stored), and no id or key.
  expect(bytes).toContain(VALID.email);
  expect(bytes).not.toMatch(NO_IDS_OR_KEYS);

  const messages = await stored();
  expect(messages).toHaveLength(1);
  const [message] = messages;
  expect(message).toEqual({
    state: "waiting",
    for: flags.uncertain ? "uncertain" : "provider",
    id: messageId(VALID_TEMPLATE_PARAMS),
    params: VALID_TEMPLATE_PARAMS,
    // The network is the client's (decision 052): these posts come from no known address.
    network: "unknown",
    receivedAt: expect.any(Number),
    since: expect.any(Number),
    attempts: 1,
    nextAttempt: expect.any(Number),
    uncertain: flags.uncertain,
    // A send that may have arrived spent its unit of the budget; its redelivery spends none.
    counted: flags.uncertain,
    // Its network's daily share was spent when it was posted, never again.
    shared: true,
    failure: flags.failure,
    providerText: expect.any(String),
  });
  // The give-up clock starts at the provider's failure; the next try comes later, by itself.
  expect(message!.since).toBeGreaterThanOrEqual(message!.receivedAt);
  expect(message!.since).toBeLessThanOrEqual(Date.now());
  expect(message!.nextAttempt).toBeGreaterThan(message!.since);

  expect(events).toContainEqual(
    expect.objectContaining({ outcome: "relayed", ok: false, upstreamStatus: flags.upstreamStatus }),
  );
  expect(events).toContainEqual({
    outcome: "kept",
    for: flags.uncertain ? "uncertain" : "provider",
    failure: flags.failure,
    uncertain: flags.uncertain,
  });
  return message!;
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
      const { run, events } = await relay();
      const failure = expectFailure(await run(formRequest(VALID)));
      expect(failure.status).toBe(502);
      expect(failure.data).toEqual({ ok: false, status: 502, reason: "refused_by_provider", fields: VALID });
      expect(scratch.fake.requests).toHaveLength(1);
      await expectOwnerOnly();
      expect(await storeBytes()).not.toMatch(NO_IDS_OR_KEYS);
      const messages = await stored();
      expect(messages).toHaveLength(1);
      const [message] = messages;
      expect(message).toMatchObject({
        state: "held",
        for: "refused_by_provider",
        id: messageId(VALID_TEMPLATE_PARAMS),
        params: VALID_TEMPLATE_PARAMS,
        attempts: 1,
        uncertain: false,
        providerText: "Bad request",
        // Never sent again by itself; its retention counts from when it was set aside.
        nextAttempt: null,
        since: expect.any(Number),
      });
      expect(message!.since).toBeGreaterThanOrEqual(message!.receivedAt);
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
        { outcome: "kept", for: "refused_by_provider", failure: "refused_by_provider", uncertain: false },
        { outcome: "refused", status: 502, reason: "refused_by_provider" },
      ]);
      await expectQuotaUnused(run);
    },
  );

  it("a 429 without Retry-After is final and certain", async () => {
    scratch.fake.setMode({ kind: "status", status: 429 });
    const { run, events } = await relay();
    expect(expectFailure(await run(formRequest(VALID))).data.reason).toBe("upstream_rejected");
    expect(scratch.fake.requests).toHaveLength(1);
    await expectKept(events, { failure: "upstream_rejected", upstreamStatus: 429, uncertain: false });
  });

  it.each([500, 502, 503])(
    "a %i without Retry-After is final and uncertain: no second try",
    async (status) => {
      scratch.fake.setMode({ kind: "status", status });
      const { run, events } = await relay();
      const failure = expectFailure(await run(formRequest(VALID)));
      expect(failure.data).toEqual({ ok: false, status: 502, reason: "upstream_error", fields: VALID });
      expect(scratch.fake.requests).toHaveLength(1);
      await expectKept(events, { failure: "upstream_error", upstreamStatus: status, uncertain: true });
      await expectQuotaUnused(run);
    },
  );

  it("a 503 whose Retry-After is over the bound is final", async () => {
    scratch.fake.setMode({ kind: "status", status: 503, headers: { "Retry-After": "3" } });
    const { run, events } = await relay();
    expect(expectFailure(await run(formRequest(VALID))).data.reason).toBe("upstream_error");
    expect(scratch.fake.requests).toHaveLength(1);
    await expectKept(events, { failure: "upstream_error", upstreamStatus: 503, uncertain: true });
  });

  it("no answer in time: 504 after one attempt, kept as uncertain", async () => {
    scratch.fake.setMode({ kind: "hang" });
    const { run, events } = await relay();
    const failure = expectFailure(await run(formRequest(VALID)));
    expect(failure.data).toEqual({ ok: false, status: 504, reason: "upstream_timeout", fields: VALID });
    expect(scratch.fake.requests).toHaveLength(1);
    expect(events[1]).toMatchObject({ outcome: "relayed", ok: false, upstreamStatus: 0, attempts: 1 });
    await expectKept(events, { failure: "upstream_timeout", upstreamStatus: 0, uncertain: true });
    await expectQuotaUnused(run);
  });

  it("the connection dropped after the request was read: 502 after one attempt, uncertain", async () => {
    scratch.fake.setMode({ kind: "drop" });
    const { run, events } = await relay();
    const failure = expectFailure(await run(formRequest(VALID)));
    expect(failure.data).toEqual({ ok: false, status: 502, reason: "upstream_dropped", fields: VALID });
    expect(scratch.fake.requests).toHaveLength(1);
    await expectKept(events, { failure: "upstream_dropped", upstreamStatus: 0, uncertain: true });
    await expectQuotaUnused(run);
  });
});

describe("retried: only what the provider cannot have received", () => {
  it("connection refused: every attempt the policy allows, then kept as certainly not delivered", async () => {
    const { run, events } = await relay(`http://127.0.0.1:${await closedPort()}`);
    const failure = expectFailure(await run(formRequest(VALID)));
    expect(failure.data).toEqual({ ok: false, status: 502, reason: "upstream_unreachable", fields: VALID });
    expect(events[1]).toMatchObject({ outcome: "relayed", ok: false, upstreamStatus: 0, attempts: 3 });
    await expectKept(events, { failure: "upstream_unreachable", upstreamStatus: 0, uncertain: false });
    // Its one message per client was given back: the next one is tried, not refused with 429.
    const next = expectFailure(await run(formRequest({ ...VALID, subject: "Next" })));
    expect(next.data.reason).toBe("upstream_unreachable");
  });

  it("a 503 with Retry-After: 1 waits that second, then the message goes through once", async () => {
    scratch.fake.queue({ kind: "status", status: 503, headers: { "Retry-After": "1" } });
    const { run, events } = await relay();
    expectRedirect(await run(formRequest(VALID)));
    expect(scratch.fake.requests).toHaveLength(2);
    expect(scratch.fake.requests[1]!.at - scratch.fake.requests[0]!.at).toBeGreaterThanOrEqual(950);
    expect(scratch.fake.requests[0]!.rawBody).toBe(scratch.fake.requests[1]!.rawBody);
    expect(events[1]).toMatchObject({ outcome: "relayed", ok: true, upstreamStatus: 200, attempts: 2 });
    expect(await stored()).toEqual([]);
  });

  it("a 429 with Retry-After: 0 is retried at once", async () => {
    scratch.fake.queue({ kind: "status", status: 429, headers: { "Retry-After": "0" } });
    const { run } = await relay();
    expectRedirect(await run(formRequest(VALID)));
    expect(scratch.fake.requests).toHaveLength(2);
  });

  it("Retry-After that would pass the deadline is not waited for", async () => {
    scratch.fake.setMode({ kind: "status", status: 503, headers: { "Retry-After": "1" } });
    const { run, events } = await relay(scratch.fake.url, { ...FAST_RETRY, deadlineMs: 1_000 });
    expect(expectFailure(await run(formRequest(VALID))).data.reason).toBe("upstream_error");
    expect(scratch.fake.requests).toHaveLength(1);
    await expectKept(events, { failure: "upstream_error", upstreamStatus: 503, uncertain: true });
  });

  it("a provider that keeps asking to retry gets at most maxAttempts requests", async () => {
    scratch.fake.setMode({ kind: "status", status: 503, headers: { "Retry-After": "0" } });
    const { run, events } = await relay();
    expect(expectFailure(await run(formRequest(VALID))).status).toBe(502);
    expect(scratch.fake.requests).toHaveLength(FAST_RETRY.maxAttempts);
    await expectKept(events, { failure: "upstream_error", upstreamStatus: 503, uncertain: true });
  });
});

describe("an identical re-post", () => {
  it("is answered from the kept copy: the provider is not called again, and it uses the quota", async () => {
    scratch.fake.setMode({ kind: "status", status: 500 });
    const { run, events } = await relay();
    expectFailure(await run(formRequest(VALID)));
    const first = await expectKept(events, {
      failure: "upstream_error",
      upstreamStatus: 500,
      uncertain: true,
    });

    // The provider is back, but the message already waits: the redelivery sends it, once.
    scratch.fake.setMode({ kind: "status", status: 200 });
    const again = expectFailure(await run(formRequest(VALID)));
    expect(again).toMatchObject({ status: 502, data: { reason: "upstream_error" } });
    expect(scratch.fake.requests).toHaveLength(1);
    const still = await expectKept(events, {
      failure: "upstream_error",
      upstreamStatus: 500,
      uncertain: true,
    });
    // The same message, untouched: not a second copy, not another try.
    expect(still).toEqual(first);
    expect(events).toContainEqual({ outcome: "already_kept", for: "uncertain" });

    // The first, newly kept, gave its unit back; the re-post did not (CONTACT_RATE_LIMIT_MAX is 1).
    const next = expectFailure(await run(formRequest({ ...VALID, subject: "Another" })));
    expect(next.data.reason).toBe("rate_limited");
  });

  it("a different subject is a different message: a second one kept", async () => {
    scratch.fake.setMode({ kind: "status", status: 500 });
    const { run } = await relay();
    expectFailure(await run(formRequest(VALID)));
    expectFailure(await run(formRequest({ ...VALID, subject: "Engines, again" })));
    const messages = await stored();
    expect(messages.map((message) => message.params.subject)).toEqual(["Engines", "Engines, again"]);
    expect(new Set(messages.map((message) => message.id)).size).toBe(2);
  });
});

/**
 * `count` messages kept in the store as the engine keeps them after the provider failed them once (only
 * messages take its places), written in one opening of the store.
 */
async function keptFillers(count: number) {
  const rules = testConfig({});
  const now = Date.now();
  await withStore(outboxDir(), async (db) => {
    for (let i = 0; i < count; i++) {
      const params = { ...VALID_TEMPLATE_PARAMS, subject: `filler ${i}` };
      await db.put(afterAttempt(received(params, "unknown", now), PROVIDER_FAILED, now, rules)!);
    }
  });
}

describe("the store's places", () => {
  it("full: the message is not kept, the visitor is told so and where to write, and the log says so", async () => {
    await keptFillers(KEPT_LIMIT);
    scratch.fake.setMode({ kind: "status", status: 500 });
    const { run, events } = await relay();
    const failure = expectFailure(await run(formRequest(VALID)));
    expect(failure.data).toEqual({ ok: false, status: 503, reason: "not_kept", fields: VALID });
    expect(outcomeText(failure.data).detail).toContain(`write to me at ${site.contact.email}`);
    expect(scratch.fake.requests).toHaveLength(1);
    const messages = await stored();
    expect(messages).toHaveLength(KEPT_LIMIT);
    expect(messages.find((message) => message.params.subject === VALID.subject)).toBeUndefined();
    expect(events).toContainEqual({ outcome: "not_kept", for: "uncertain", why: "full" });
  });

  // Root ignores permission bits: a path under a regular file cannot be made a folder by anyone (ENOTDIR).
  it("cannot be opened: no action at all, and a StoreError that names the file and why", async () => {
    const blocker = path.join(scratch.outbox, "a-file");
    await writeFile(blocker, "");
    const unopenable = path.join(blocker, "outbox");
    await expect(setupAction(relayEnv(scratch.fake.url, { OUTBOX_DIR: unopenable }))).rejects.toMatchObject({
      name: "StoreError",
      message: `cannot open ${unopenable}/outbox.sqlite: the folder ${unopenable} cannot be made or used (ENOTDIR)`,
    });
    expect(scratch.fake.requests).toHaveLength(0);
  });

  // Failures once gave the quota back, so one client filled the folder.
  it("one client may leave a few messages; past that they are not kept and count against its limit", async () => {
    scratch.fake.setMode({ kind: "status", status: 500 });
    const { run, events } = await relay();
    const outcomes = [];
    for (let i = 0; i < STORED_PER_CLIENT.max + 3; i++) {
      const answer = await run(formRequest({ ...VALID, subject: `flood ${i}` }));
      outcomes.push(expectFailure(answer).data.reason);
    }
    // await relay() allows one message per client: the one not kept uses it up.
    expect(outcomes).toEqual([
      ...Array(STORED_PER_CLIENT.max).fill("upstream_error"),
      "not_kept",
      "rate_limited",
      "rate_limited",
    ]);
    expect(await stored()).toHaveLength(STORED_PER_CLIENT.max);
    expect(
      events.filter((event) => event.outcome === "not_kept" && event.why === "client_full"),
    ).toHaveLength(1);
  });

  it("holds its limit under concurrency: 60 posts at once into a store of 995 leave 1,000", async () => {
    await keptFillers(KEPT_LIMIT - 5);
    scratch.fake.setMode({ kind: "status", status: 500 });
    // Each post from a client and network of its own, so only the store's places decide.
    const { run, events } = await setupAction(
      relayEnv(scratch.fake.url, {
        OUTBOX_DIR: outboxDir(),
        CONTACT_RATE_LIMIT_MAX: "1",
        EMAILJS_MAX_PER_SECOND: "1000",
      }),
    );
    const outcomes = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        // Each text its own too, so the spam score's "same text from many clients" stays out of it.
        const post = { ...VALID, subject: `concurrent ${i}`, message: `${VALID.message} (${i})` };
        const answer = await run(formRequest(post), `198.18.${i}.1`);
        // On a busy machine a post may find no slot at the provider's pace in time: then it is kept waiting
        // for one (told "sent") or, once the provider is known to fail, for the provider. Either takes a place.
        return answer.kind === "redirect" ? "kept_for_its_slot" : expectFailure(answer).data.reason;
      }),
    );
    const kept = outcomes.filter((reason) => reason !== "not_kept");
    expect(kept).toHaveLength(5);
    for (const reason of kept)
      expect(["upstream_error", "upstream_timeout", "kept_for_its_slot"]).toContain(reason);
    expect(outcomes.filter((reason) => reason === "not_kept")).toHaveLength(55);
    expect(events.filter((event) => event.outcome === "kept")).toHaveLength(5);
    expect(events.filter((event) => event.outcome === "not_kept" && event.why === "full")).toHaveLength(55);
    const messages = await stored();
    expect(messages).toHaveLength(KEPT_LIMIT);
    expect(messages.filter((message) => message.params.subject.startsWith("concurrent"))).toHaveLength(5);
  }, 30_000);
});

// The body of the provider's answer once decided too much.
describe("the provider's answer: the status decides, the body is read briefly and bounded", () => {
  it("a 200 whose body comes later than the attempt's time is a success, at once", async () => {
    scratch.fake.setMode({ kind: "streamed", status: 200, bytes: 2, overMs: 5_000 });
    const { run } = await relay(scratch.fake.url, {
      ...FAST_RETRY,
      attemptTimeoutMs: 2_000,
      deadlineMs: 3_000,
    });
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
      const { run, events } = await relay();
      const failure = expectFailure(await run(formRequest(VALID)));
      expect(failure.data).toMatchObject({ status: 502, reason: "upstream_rejected" });
      expect(scratch.fake.requests.map((request) => request.path)).toEqual(["/api/v1.0/email/send"]);
      await expectKept(events, { failure: "upstream_rejected", upstreamStatus: status, uncertain: false });
      expect(events).toContainEqual(expect.objectContaining({ outcome: "relayed", upstreamStatus: status }));
    },
  );
});

describe("successes", () => {
  it("any 2xx is success, one attempt, nothing kept", async () => {
    scratch.fake.setMode({ kind: "status", status: 202, body: "" });
    const { run } = await relay();
    expect(expectRedirect(await run(formRequest(VALID))).status).toBe(303);
    expect(scratch.fake.requests).toHaveLength(1);
    expect(await stored()).toEqual([]);
  });

  it("a slow answer inside the attempt timeout is still a success", async () => {
    scratch.fake.setMode({ kind: "status", status: 200, delayMs: 100 });
    const { run } = await relay();
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
