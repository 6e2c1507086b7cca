// Property-based: hostile and arbitrary input thrown at the real action, with
// the HTTP fake behind it. Whatever arrives, the action answers (never throws),
// with a redirect or a 4xx, and the provider only ever sees valid, trimmed,
// bounded text; the log lines never carry what the visitor typed.
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CONTACT_FIELDS, FIELD_BOUNDS, HONEYPOT_FIELD } from "~/contact/form/contract";
import { validateContact } from "~/contact/form/schema";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { BROWSER_HEADERS, VALID, expectFailure, relayEnv, setupAction } from "../support/contact";

let fake: EmailJsFake;
beforeAll(async () => {
  fake = await startEmailJsFake();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

// Strings a hostile client might send: any unicode, control characters,
// CR/LF, near and over the bounds, and look-alikes of valid values.
const hostileString = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  // eslint-disable-next-line no-control-regex -- control characters are the hostile input here
  fc.stringMatching(/^[\s\r\n\t\u0000-\u001f\u007f\u2028\u2029\u200b\ufeff]{0,10}$/),
  fc.constantFrom(
    ...Object.values(VALID),
    " ada@example.com ",
    "a@b.co\r\nBcc: x@evil.test",
    "\u202Eevil",
    "%0d%0a",
    "=?utf-8?q?x?=",
  ),
  fc.integer({ min: 90, max: 5100 }).map((n) => "x".repeat(n)),
  fc.tuple(fc.constantFrom(...Object.values(VALID)), fc.string({ maxLength: 5 })).map(([a, b]) => a + b),
);

// Values a real visitor could type, so that many runs reach the relay.
const plausible = {
  name: fc.string({ unit: "grapheme", minLength: 1, maxLength: 100 }),
  email: fc.oneof(fc.constantFrom(VALID.email, "x.y+z@sub.example.org"), fc.emailAddress()),
  subject: fc.string({ unit: "grapheme", minLength: 1, maxLength: 200 }),
  message: fc
    .array(fc.string({ unit: "grapheme", minLength: 1 }), { minLength: 1, maxLength: 5 })
    .map((lines) => lines.join("\r\n")),
};

// A field may be plausible, hostile, missing, duplicated, or a file.
const fieldValue = (field: (typeof CONTACT_FIELDS)[number]) =>
  fc.oneof(
    { weight: 9, arbitrary: plausible[field] },
    { weight: 6, arbitrary: hostileString },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.array(hostileString, { minLength: 2, maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constant({ file: "evil.txt" }) },
  );

type Value = string | string[] | { file: string } | undefined;

const submission = fc.record({
  fields: fc.record({
    name: fieldValue("name"),
    email: fieldValue("email"),
    subject: fieldValue("subject"),
    message: fieldValue("message"),
  }),
  honeypot: fc.oneof(fc.constant(undefined), fc.constant(""), hostileString),
  extra: fc.dictionary(fc.string({ maxLength: 10 }), hostileString, { maxKeys: 3 }),
  multipart: fc.boolean(),
});

type Submission = {
  fields: Record<(typeof CONTACT_FIELDS)[number], Value>;
  honeypot: string | undefined;
  extra: Record<string, string>;
  multipart: boolean;
};

function toRequest({ fields, honeypot, extra, multipart }: Submission): Request {
  const entries: Array<[string, string | Blob, string?]> = [];
  for (const [name, value] of Object.entries({ ...extra, ...fields, [HONEYPOT_FIELD]: honeypot })) {
    if (value === undefined) continue;
    if (typeof value === "object" && !Array.isArray(value)) entries.push([name, new Blob(["x"]), value.file]);
    else for (const item of Array.isArray(value) ? value : [value]) entries.push([name, item]);
  }
  if (multipart) {
    const form = new FormData();
    for (const [name, value, filename] of entries) {
      if (typeof value === "string") form.append(name, value);
      else form.append(name, value, filename);
    }
    return new Request("http://localhost/?index", { method: "POST", headers: BROWSER_HEADERS, body: form });
  }
  const body = new URLSearchParams();
  for (const [name, value] of entries) body.append(name, typeof value === "string" ? value : "[file]");
  return new Request("http://localhost/?index", {
    method: "POST",
    headers: { ...BROWSER_HEADERS, "Content-Type": "application/x-www-form-urlencoded" },
    body,
  });
}

/** What the schema sees for a field, the way the browser's form data carries it. */
function rawValue(value: Value, multipart: boolean): unknown {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value;
  if (typeof value === "object") return multipart ? new Blob(["x"]) : "[file]";
  return value;
}

const NO_CONTROL = /^[^\p{Cc}]*$/u;

let clients = 0;
// A network of its own each (an IPv4 /24): a network may have only a few messages mailed a day.
const nextClient = () => `10.${(clients >> 8) & 255}.${clients++ & 255}.1`;

describe("the action under arbitrary input", () => {
  it("never throws, answers 303 or 4xx, and relays only valid, trimmed, bounded text", async () => {
    const { run, events } = await setupAction(relayEnv(fake.url, { CONTACT_RATE_LIMIT_MAX: "1000000" }));
    let relayed = 0;

    await fc.assert(
      fc.asyncProperty(submission, async (input: Submission) => {
        const before = fake.requests.length;
        // Each run its own client and network: this is about input, not the limits.
        const result = await run(toRequest(input), nextClient());
        const sent = fake.requests.slice(before);
        // multipart/form-data line breaks in values are CRLF-normalised by the
        // encoder; the schema normalises them back, so validity is unchanged.
        const raw = Object.fromEntries(
          CONTACT_FIELDS.map((field) => [field, rawValue(input.fields[field], input.multipart)]),
        );
        const valid = validateContact(raw).ok;
        const bot = typeof input.honeypot === "string" && input.honeypot.trim() !== "";

        if (result.kind === "redirect") {
          expect(result.status).toBe(303);
          expect(result.location).toBe("/#contact-outcome");
          expect(valid).toBe(true);
        } else {
          const { status, data } = expectFailure(result);
          expect(status).toBe(400);
          expect(valid).toBe(false);
          expect(Object.keys(data.fieldErrors ?? {}).length).toBeGreaterThan(0);
        }

        expect(sent).toHaveLength(valid && !bot ? 1 : 0);
        for (const request of sent) {
          relayed += 1;
          const params = (request.body as { template_params: Record<string, string> }).template_params;
          for (const field of ["name", "subject", "message"] as const) {
            expect(params[field]!.length).toBeGreaterThan(0);
            expect(params[field]!.length).toBeLessThanOrEqual(FIELD_BOUNDS[field]);
            expect(params[field]).toBe(params[field]!.trim());
          }
          expect(params.from_email).toMatch(/^[^\s@]+@[^\s@]+\.[^\s@]+$/);
          expect(params.from_email!.length).toBeLessThanOrEqual(FIELD_BOUNDS.email);
          expect(params.name).toMatch(NO_CONTROL);
          expect(params.subject).toMatch(NO_CONTROL);
          expect(params.message).not.toContain("\r");
        }
      }),
      { numRuns: 250 },
    );

    // The generators reach the relay, not only the refusals.
    expect(relayed).toBeGreaterThan(0);
    // Log lines carry outcomes and statuses, never what was typed.
    for (const event of events) {
      for (const key of Object.keys(event)) {
        expect([
          "outcome",
          "transport",
          "reason",
          "status",
          "ok",
          "upstreamStatus",
          "attempts",
          "durationMs",
        ]).toContain(key);
      }
    }
  }, 60_000);

  it("any body with any content type: never throws, never a 5xx, never relayed unless it is a valid form", async () => {
    const { run } = await setupAction(relayEnv(fake.url, { CONTACT_RATE_LIMIT_MAX: "1000000" }));
    const contentType = fc.oneof(
      fc.constantFrom(
        "application/x-www-form-urlencoded",
        "application/x-www-form-urlencoded; charset=utf-8",
        "multipart/form-data",
        "multipart/form-data; boundary=abc",
        "application/json",
        "text/plain",
        "",
      ),
      fc.string({ maxLength: 30 }),
    );
    await fc.assert(
      fc.asyncProperty(contentType, fc.string({ unit: "binary", maxLength: 300 }), async (type, body) => {
        const headers = new Headers(BROWSER_HEADERS);
        try {
          headers.set("Content-Type", type);
        } catch {
          return; // not a header value any client could send
        }
        const before = fake.requests.length;
        const result = await run(
          new Request("http://localhost/?index", { method: "POST", headers, body }),
          nextClient(),
        );
        const status = result.kind === "redirect" ? result.status : expectFailure(result).status;
        expect([303, 400, 415]).toContain(status);
        if (fake.requests.length > before) expect(status).toBe(303);
      }),
      { numRuns: 250 },
    );
  }, 60_000);
});
