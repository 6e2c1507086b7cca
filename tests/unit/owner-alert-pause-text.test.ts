// The owner's words for a pause EmailJS asked for past the cap: what it asked, when sending goes on (decision 050).
import { describe, expect, it } from "vitest";
import { alertText } from "~/contact/alerts/alerts.server";
import { RETRY_AFTER_CAP_MS } from "~/contact/rules/rulebook.server";
import { askedPause } from "~/contact/delivery/provider.server";
import { askedPauseWords } from "~/contact/rules/words.server";

const AT = "2026-11-27T10:00:00.000Z";

describe("a pause asked past the cap", () => {
  it("the cap is a minute", () => {
    expect(RETRY_AFTER_CAP_MS).toBe(60_000);
  });

  it("says what was asked, until when sending is held, and that it is tried again", () => {
    expect(alertText({ kind: "provider_pause", status: 429, askedMs: 86_400_000, at: AT })).toEqual({
      title: "Contact form: EmailJS asks to wait 24 hours",
      body: "EmailJS answered 429. EmailJS asked at 2026-11-27T10:00:00Z to wait 24 hours (until 2026-11-28T10:00:00Z); sending is held until 2026-11-27T10:01:00Z, 60 seconds at most, then tried again. Meanwhile new messages are kept; they are sent by themselves. If EmailJS keeps asking, check the account's plan and limits in the EmailJS dashboard.",
    });
  });

  it.each([
    [90_000, "90 seconds"],
    [5 * 60_000, "5 minutes"],
    [3 * 86_400_000, "3 days"],
    [Date.parse("2100-01-01T00:00:00Z") - Date.parse(AT), "73 years"],
  ])("%i ms is %s", (ms, words) => {
    expect(askedPauseWords({ at: AT, ms })).toContain(`to wait ${words} (until `);
  });

  it("a Retry-After past any date says so rather than failing", () => {
    expect(askedPauseWords({ at: AT, ms: Number.MAX_SAFE_INTEGER })).toMatch(
      /to wait 285\d{3} years \(until beyond any date\)/,
    );
  });

  it("the title is printable ASCII (ntfy sends it as a header)", () => {
    const alert = { kind: "provider_pause", status: 503, askedMs: 10 ** 15, at: AT } as const;
    expect(alertText(alert).title).toMatch(/^[\x20-\x7e]+$/);
  });

  it("is in force until its time passes", () => {
    const state = { state: "ok", asked: { at: AT, ms: 120_000 } } as const;
    expect(askedPause(state, Date.parse(AT) + 119_999)).toEqual(state.asked);
    expect(askedPause(state, Date.parse(AT) + 120_000)).toBeNull();
    expect(askedPause({ state: "ok" })).toBeNull();
  });
});
