// What the visitor reads for each outcome: the spec's title and text always, and after them what
// this case adds (too long; too many, and for how long; kept to send later; not kept).
import { describe, expect, it } from "vitest";
import { site } from "~/content/site";
import {
  FIELD_BOUNDS,
  outcomeText,
  type ContactFailure,
  type ContactFailureReason,
} from "~/contact/form/contract";

// Word for word from the spec (docs/product.md, docs/contact.md), not from the code under test.
const SENT = {
  title: "Message Sent!",
  description: "Thank you for your message. I'll get back to you soon!",
};
const FAILED = {
  title: "Error Sending Message",
  description: "There was an issue sending your message. Please try again or contact me directly.",
};
const CONFIRM = {
  title: "Please confirm your message",
  description: "To keep spam out, please check your message below and press Send Message again.",
};

const failure = (extra: Partial<ContactFailure>): ContactFailure => ({
  ok: false,
  status: 502,
  reason: "upstream_error",
  fields: { name: "", email: "", subject: "", message: "" },
  ...extra,
});

const REASONS: ContactFailureReason[] = [
  "payload_too_large",
  "unsupported_media_type",
  "cross_site",
  "invalid_fields",
  "blocklisted",
  "rate_limited",
  "headless_browser",
  "upstream_rejected",
  "upstream_error",
  "upstream_unreachable",
  "upstream_dropped",
  "upstream_timeout",
  "refused_by_provider",
  "outbox_write_failed",
  "not_kept",
  "network_error",
];

describe("outcomeText", () => {
  it("sent reads as the spec's text", () => {
    expect(outcomeText({ ok: true })).toEqual(SENT);
  });

  it.each(REASONS)("%s: the spec's title and text, word for word, first", (reason) => {
    const text = outcomeText(failure({ reason, retryAfterMinutes: 3 }));
    expect(text.title).toBe(FAILED.title);
    expect(text.description).toBe(FAILED.description);
  });

  it("a body over the limit adds that the message is too long and the limit", () => {
    const { detail } = outcomeText(failure({ status: 413, reason: "payload_too_large" }));
    expect(detail).toContain("too long");
    expect(detail).toContain(FIELD_BOUNDS.message.toLocaleString("en"));
  });

  it("a rate-limited post adds when to try again, in whole minutes", () => {
    const at = (minutes: number) =>
      outcomeText(failure({ status: 429, reason: "rate_limited", retryAfterMinutes: minutes })).detail;
    expect(at(1)).toContain("in 1 minute.");
    expect(at(10)).toContain("in 10 minutes.");
  });

  it("a message kept for redelivery says so; one not kept gives the owner's address", () => {
    expect(outcomeText(failure({ reason: "upstream_timeout" })).detail).toMatch(/saved and will be sent/);
    expect(outcomeText(failure({ reason: "not_kept" })).detail).toContain(site.contact.email);
    // Held for the owner: saved, but not promised to be sent.
    expect(outcomeText(failure({ reason: "refused_by_provider" })).detail).toBe(
      "Your message is saved, and I will read it.",
    );
    expect(outcomeText(failure({ reason: "invalid_fields" })).detail).toBeUndefined();
  });

  it("a post without proof asks for a second press", () => {
    expect(outcomeText(failure({ status: 200, reason: "unconfirmed" }))).toEqual(CONFIRM);
  });
});
