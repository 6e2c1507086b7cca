// What the visitor reads for each outcome: the site's two texts, except where
// a refusal can say exactly what to do (too long; too many, and for how long).
import { describe, expect, it } from "vitest";
import { FIELD_BOUNDS, OUTCOME_TEXT, outcomeText, type ContactFailure } from "~/contact/contract";

const failure = (extra: Partial<ContactFailure>): ContactFailure => ({
  ok: false,
  status: 502,
  reason: "upstream_error",
  fields: { name: "", email: "", subject: "", message: "" },
  ...extra,
});

describe("outcomeText", () => {
  it("sent and most failures read as the site's two texts", () => {
    expect(outcomeText({ ok: true })).toEqual(OUTCOME_TEXT.sent);
    expect(outcomeText(failure({}))).toEqual(OUTCOME_TEXT.failed);
    expect(outcomeText(failure({ status: 429, reason: "rate_limited" }))).toEqual(OUTCOME_TEXT.failed);
  });

  it("a body over the limit says the message is too long and gives the limit", () => {
    const text = outcomeText(failure({ status: 413, reason: "payload_too_large" }));
    expect(text.title).toBe(OUTCOME_TEXT.failed.title);
    expect(text.description).toContain("too long");
    expect(text.description).toContain(FIELD_BOUNDS.message.toLocaleString("en"));
  });

  it("a rate-limited post says when to try again, in whole minutes", () => {
    const at = (minutes: number) =>
      outcomeText(failure({ status: 429, reason: "rate_limited", retryAfterMinutes: minutes })).description;
    expect(at(1)).toContain("in 1 minute ");
    expect(at(10)).toContain("in 10 minutes");
  });
});
