// The contact action end to end: real Requests in, a real HTTP fake of the
// EmailJS API behind it. Every test checks the answer AND what the provider got.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createContactFlash } from "~/contact/action/flash.server";
import { BODY_LIMIT_BYTES } from "~/contact/action/contact-action.server";
import { HONEYPOT_FIELD } from "~/contact/form/contract";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import {
  VALID_TEMPLATE_PARAMS,
  BROWSER_HEADERS,
  VALID,
  expectFailure,
  expectRedirect,
  formBody,
  formRequest,
  relayEnv,
  setupAction,
  testConfig,
} from "../support/contact";

let fake: EmailJsFake;
beforeAll(async () => {
  fake = await startEmailJsFake();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const EXPECTED_BODY = {
  lib_version: "4.4.1",
  user_id: "pk_test_PUBLIC_123",
  service_id: "service_test_456",
  template_id: "template_test_789",
  template_params: VALID_TEMPLATE_PARAMS,
};

describe("a valid message", () => {
  it("is relayed with exactly the body of @emailjs/browser 4.4.1 send(), then redirects with a one-time flash", async () => {
    const { run, events } = await setupAction(relayEnv(fake.url));
    const response = expectRedirect(await run(formRequest({ ...VALID, [HONEYPOT_FIELD]: "" })));

    expect(response.status).toBe(303);
    expect(response.location).toBe("/#contact-outcome");
    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect(sent!.method).toBe("POST");
    expect(sent!.path).toBe("/api/v1.0/email/send");
    expect(sent!.headers["content-type"]).toBe("application/json");
    expect(sent!.rawBody).toBe(JSON.stringify(EXPECTED_BODY));

    // The page after the redirect reads the outcome once and clears it.
    const { read: readContactFlash } = createContactFlash(testConfig(relayEnv(fake.url)).sessionSecret);
    const cookie = response.headers["Set-Cookie"]!.split(";")[0]!;
    const flash = await readContactFlash(new Request("http://localhost/", { headers: { Cookie: cookie } }));
    expect(flash.sent).toBe(true);
    expect(flash.headers.get("Set-Cookie")).toMatch(/^contact_flash=;.*Max-Age=0/);
    const none = await readContactFlash(new Request("http://localhost/"));
    expect(none.sent).toBe(false);
    expect([...none.headers]).toEqual([]);

    expect(events).toEqual([
      { outcome: "accepted", transport: "relay" },
      { outcome: "relayed", ok: true, upstreamStatus: 200, attempts: 1, durationMs: expect.any(Number) },
    ]);
  });

  it("is trimmed before it is sent", async () => {
    const { run } = await setupAction(relayEnv(fake.url));
    const padded = {
      name: `  ${VALID.name} `,
      email: ` ${VALID.email}\t`,
      subject: `\n${VALID.subject} `,
      message: ` ${VALID.message}\n\n`,
    };
    expectRedirect(await run(formRequest(padded)));
    expect(fake.requests[0]!.body).toEqual(EXPECTED_BODY);
  });

  it("carries the private key as accessToken when one is configured", async () => {
    const { run } = await setupAction(relayEnv(fake.url, { EMAILJS_PRIVATE_KEY: "private_SECRET_abc" }));
    expectRedirect(await run(formRequest(VALID)));
    expect(fake.requests[0]!.rawBody).toBe(
      JSON.stringify({ ...EXPECTED_BODY, accessToken: "private_SECRET_abc" }),
    );
  });

  it("is accepted as multipart/form-data too", async () => {
    const { run } = await setupAction(relayEnv(fake.url));
    const form = new FormData();
    for (const [key, value] of Object.entries(VALID)) form.append(key, value);
    const request = new Request("http://localhost/?index", {
      method: "POST",
      headers: BROWSER_HEADERS,
      body: form,
    });
    expect(request.headers.get("content-type")).toMatch(/^multipart\/form-data; boundary=/);
    expectRedirect(await run(request));
    expect(fake.requests[0]!.body).toEqual(EXPECTED_BODY);
  });
});

describe("invalid input is refused with 400, field errors and the typed text, and never sent", () => {
  const long = (n: number) => "x".repeat(n);
  const cases: Array<[string, Record<string, string | string[]>, string, string]> = [
    ["name missing", { ...VALID, name: "" }, "name", "Please enter your name."],
    ["name blank", { ...VALID, name: "   \t" }, "name", "Please enter your name."],
    ["name too long", { ...VALID, name: long(101) }, "name", "Name must be at most 100 characters."],
    [
      "name with a line break",
      { ...VALID, name: "Ada\r\nBcc: x@evil.test" },
      "name",
      "Name must be a single line of text.",
    ],
    ["email missing", { ...VALID, email: " " }, "email", "Please enter your email address."],
    ["email invalid", { ...VALID, email: "not-an-address" }, "email", "Please enter a valid email address."],
    [
      "email with a header",
      { ...VALID, email: "a@b.co\nBcc: x@evil.test" },
      "email",
      "Please enter a valid email address.",
    ],
    [
      "email too long",
      { ...VALID, email: `${long(250)}@b.co` },
      "email",
      "Email must be at most 254 characters.",
    ],
    ["subject missing", { ...VALID, subject: "" }, "subject", "Please enter a subject."],
    [
      "subject too long",
      { ...VALID, subject: long(201) },
      "subject",
      "Subject must be at most 200 characters.",
    ],
    [
      "subject with a control character",
      { ...VALID, subject: "hi\u0007" },
      "subject",
      "Subject must not contain control characters.",
    ],
    [
      "name with a line separator",
      { ...VALID, name: "Ada\u2028Bcc: x" },
      "name",
      "Name must be a single line of text.",
    ],
    ["name of a zero-width space", { ...VALID, name: "\u200b" }, "name", "Please enter your name."],
    [
      "message with a NUL",
      { ...VALID, message: "hi\u0000there" },
      "message",
      "Message must not contain control characters other than line breaks and tabs.",
    ],
    ["message missing", { ...VALID, message: "\n\n" }, "message", "Please enter a message."],
    [
      "message too long",
      { ...VALID, message: long(5001) },
      "message",
      "Message must be at most 5000 characters.",
    ],
    ["message duplicated", { ...VALID, message: ["one", "two"] }, "message", "Please enter a message."],
  ];

  it.each(cases)("%s", async (_label, values, field, message) => {
    const { run, events } = await setupAction(relayEnv(fake.url));
    const { status, data } = expectFailure(await run(formRequest(values)));
    expect(status).toBe(400);
    expect(data).toMatchObject({ ok: false, status: 400, reason: "invalid_fields" });
    expect(data.fieldErrors).toEqual({ [field]: message });
    // The typed text comes back so the page can show the form filled again.
    const typed = values[field];
    expect(data.fields[field as keyof typeof data.fields]).toBe(Array.isArray(typed) ? typed[0] : typed);
    expect(fake.requests).toHaveLength(0);
    expect(events).toEqual([{ outcome: "refused", status: 400, reason: "invalid_fields" }]);
  });

  it("reports every invalid field at once, when the form is empty", async () => {
    const { run } = await setupAction(relayEnv(fake.url));
    const { data } = expectFailure(await run(formRequest({})));
    expect(Object.keys(data.fieldErrors ?? {}).sort()).toEqual(["email", "message", "name", "subject"]);
    expect(fake.requests).toHaveLength(0);
  });

  it("refuses a file where text belongs", async () => {
    const { run } = await setupAction(relayEnv(fake.url));
    const form = new FormData();
    for (const [key, value] of Object.entries(VALID)) if (key !== "subject") form.append(key, value);
    form.append("subject", new Blob(["hello"]), "subject.txt");
    const request = new Request("http://localhost/?index", {
      method: "POST",
      headers: BROWSER_HEADERS,
      body: form,
    });
    const { status, data } = expectFailure(await run(request));
    expect(status).toBe(400);
    expect(data.fieldErrors).toEqual({ subject: "Please enter a subject." });
    expect(fake.requests).toHaveLength(0);
  });
});

describe("requests that are not a contact form", () => {
  it("413: a declared Content-Length over the limit is refused before the body is read", async () => {
    const { run } = await setupAction(relayEnv(fake.url));
    let pulled = false;
    // highWaterMark 0: the stream is pulled only when someone reads it.
    const body = new ReadableStream<Uint8Array>(
      {
        pull() {
          pulled = true;
        },
      },
      { highWaterMark: 0 },
    );
    const request = new Request("http://localhost/?index", {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        "Content-Length": String(BODY_LIMIT_BYTES + 1),
        ...BROWSER_HEADERS,
      },
      body,
      duplex: "half",
    } as RequestInit);
    const { status, data } = expectFailure(await run(request));
    expect(status).toBe(413);
    expect(data.reason).toBe("payload_too_large");
    expect(pulled).toBe(false);
    expect(fake.requests).toHaveLength(0);
  });

  it("413: a streamed body that grows past the limit is refused, whatever its headers said", async () => {
    const { run } = await setupAction(relayEnv(fake.url));
    const chunk = new TextEncoder().encode(`${formBody(VALID)}&pad=${"a".repeat(16 * 1024)}`);
    // An endless body: the action must stop reading it by itself.
    let sentChunks = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        sentChunks += 1;
        controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    const request = new Request("http://localhost/?index", {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        "Content-Length": "100",
        ...BROWSER_HEADERS,
      },
      body,
      duplex: "half",
    } as RequestInit);
    const { status } = expectFailure(await run(request));
    expect(status).toBe(413);
    // It read past the limit only so far (so a 413 can reach a chunked sender), then cut.
    expect(cancelled).toBe(true);
    expect(sentChunks * chunk.length).toBeLessThanOrEqual(17 * BODY_LIMIT_BYTES);
    expect(fake.requests).toHaveLength(0);
  });

  it("accepts a valid message of 5,000 CJK characters, larger than 32 KiB once encoded", async () => {
    const { run } = await setupAction(relayEnv(fake.url));
    const values = { ...VALID, message: "漢".repeat(5000) };
    expect(formBody(values).toString().length).toBeGreaterThan(32 * 1024);
    expectRedirect(await run(formRequest(values)));
    expect(fake.requests).toHaveLength(1);
  });

  it.each([
    ["JSON", "application/json", JSON.stringify(VALID)],
    ["plain text", "text/plain", formBody(VALID).toString()],
    ["no content type", null, formBody(VALID).toString()],
  ])("415: %s", async (_label, contentType, body) => {
    const { run, events } = await setupAction(relayEnv(fake.url));
    const headers = new Headers(BROWSER_HEADERS);
    if (contentType) headers.set("Content-Type", contentType);
    const request = new Request("http://localhost/?index", { method: "POST", headers, body });
    if (!contentType) headers.delete("Content-Type");
    const { status, data } = expectFailure(await run(new Request(request, { headers })));
    expect(status).toBe(415);
    expect(data).toEqual({
      ok: false,
      status: 415,
      reason: "unsupported_media_type",
      fields: { name: "", email: "", subject: "", message: "" },
    });
    expect(events).toEqual([{ outcome: "refused", status: 415, reason: "unsupported_media_type" }]);
    expect(fake.requests).toHaveLength(0);
  });

  it("a malformed multipart body reads as an empty form: 400", async () => {
    const { run } = await setupAction(relayEnv(fake.url));
    const request = new Request("http://localhost/?index", {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=xyz", ...BROWSER_HEADERS },
      body: "--nope\r\nthis is not multipart",
    });
    const { status } = expectFailure(await run(request));
    expect(status).toBe(400);
    expect(fake.requests).toHaveLength(0);
  });
});

describe("guards", () => {
  it("honeypot: a filled hidden field gets the normal success and nothing is sent", async () => {
    const { run, events } = await setupAction(relayEnv(fake.url));
    const response = expectRedirect(
      await run(formRequest({ ...VALID, [HONEYPOT_FIELD]: "https://spam.example" })),
    );
    expect(response.status).toBe(303);
    expect(response.location).toBe("/#contact-outcome");
    expect(response.headers["Set-Cookie"]).toMatch(/^contact_flash=/);
    expect(fake.requests).toHaveLength(0);
    expect(events).toEqual([{ outcome: "dropped", reason: "honeypot" }]);
  });

  it("403: a sender on CONTACT_BLOCKLIST, whatever the case of the address or its +tag", async () => {
    const { run, events } = await setupAction(
      relayEnv(fake.url, { CONTACT_BLOCKLIST: "spam@example.net, ADA@example.com, @junk.example" }),
    );
    const { status, data } = expectFailure(await run(formRequest({ ...VALID, email: "Ada@Example.com" })));
    expect(status).toBe(403);
    expect(data).toMatchObject({ reason: "blocklisted", fields: { ...VALID, email: "Ada@Example.com" } });
    expect(events).toEqual([{ outcome: "refused", status: 403, reason: "blocklisted" }]);
    for (const email of ["ada+promo@example.com", "Someone@Junk.Example"]) {
      expect(expectFailure(await run(formRequest({ ...VALID, email }))).status).toBe(403);
    }
    expect(fake.requests).toHaveLength(0);

    expectRedirect(await run(formRequest({ ...VALID, email: "grace@example.com" })));
    expect(fake.requests).toHaveLength(1);
  });

  // Who the client is behind proxies (TRUST_PROXY) is Express's to say: tests/integration/trust-proxy.test.ts.
  describe("429: rate limit per client", () => {
    const env = (extra: Record<string, string> = {}) =>
      relayEnv(fake.url, { CONTACT_RATE_LIMIT_MAX: "2", CONTACT_RATE_LIMIT_WINDOW_SECONDS: "60", ...extra });

    it("refuses the message after CONTACT_RATE_LIMIT_MAX in the window", async () => {
      const { run, events } = await setupAction(env());
      const from = (ip: string) => formRequest(VALID, { "X-Forwarded-For": ip });
      expectRedirect(await run(from("203.0.113.7")));
      expectRedirect(await run(from("203.0.113.7")));
      const refused = await run(from("203.0.113.7"));
      const { status, data, headers } = expectFailure(refused);
      expect(status).toBe(429);
      expect(data.reason).toBe("rate_limited");
      expect(data.fields).toEqual(VALID);
      // When to come back, for the visitor and in the Retry-After header.
      // The page says minutes; the header has the seconds.
      const seconds = Number(headers["Retry-After"]);
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual(60);
      expect(data.retryAfterMinutes).toBe(1);
      expect(events.at(-1)).toEqual({ outcome: "refused", status: 429, reason: "rate_limited" });
      expect(fake.requests).toHaveLength(2);

      // Another client has its own allowance.
      expectRedirect(await run(from("198.51.100.9")));
      expect(fake.requests).toHaveLength(3);
    });

    it("IPv6 clients are counted per /64, so rotating addresses in it does not help", async () => {
      const { run } = await setupAction(env());
      const from = (ip: string) => formRequest(VALID, { "X-Forwarded-For": ip });
      expectRedirect(await run(from("2001:db8:1:2::10")));
      expectRedirect(await run(from("2001:db8:1:2:aaaa:bbbb:cccc:dddd")));
      expect(expectFailure(await run(from("2001:db8:1:2::99"))).status).toBe(429);
      expectRedirect(await run(from("2001:db8:1:3::10")));
      expect(fake.requests).toHaveLength(3);
    });

    it("refused input does not use up the allowance", async () => {
      const { run } = await setupAction(env());
      const from = (values: Record<string, string>) =>
        formRequest(values, { "X-Forwarded-For": "203.0.113.7" });
      for (let i = 0; i < 5; i++)
        expect(expectFailure(await run(from({ ...VALID, email: "bad" }))).status).toBe(400);
      expectRedirect(await run(from(VALID)));
      expectRedirect(await run(from(VALID)));
      expect(fake.requests).toHaveLength(2);
    });
  });

  describe("451: headless browsers, when CONTACT_BLOCK_HEADLESS is on", () => {
    const headlessUA =
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36";

    it.each([
      ["a HeadlessChrome User-Agent", { "User-Agent": headlessUA }],
      ["no Accept-Language", { "Accept-Language": "" }],
      ["no User-Agent", { "User-Agent": "" }],
    ])("refuses %s", async (_label, headers) => {
      const { run, events } = await setupAction(relayEnv(fake.url, { CONTACT_BLOCK_HEADLESS: "true" }));
      const { status, data } = expectFailure(await run(formRequest(VALID, headers)));
      expect(status).toBe(451);
      expect(data).toMatchObject({ reason: "headless_browser", fields: VALID });
      expect(events).toEqual([{ outcome: "refused", status: 451, reason: "headless_browser" }]);
      expect(fake.requests).toHaveLength(0);
    });

    it("lets a real browser through", async () => {
      const { run } = await setupAction(relayEnv(fake.url, { CONTACT_BLOCK_HEADLESS: "on" }));
      expectRedirect(await run(formRequest(VALID)));
      expect(fake.requests).toHaveLength(1);
    });

    it("is off by default", async () => {
      const { run } = await setupAction(relayEnv(fake.url));
      expectRedirect(await run(formRequest(VALID, { "User-Agent": headlessUA })));
      expect(fake.requests).toHaveLength(1);
    });
  });
});
