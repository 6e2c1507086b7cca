// The owner's alerts: which format a webhook URL gets, and texts that name the state and the fix
// without a visitor's words or address.
import { describe, expect, it } from "vitest";
import { alertFormat, alertText, type OwnerAlert } from "~/contact/alerts/alerts.server";

describe("alertFormat", () => {
  it.each([
    ["https://ntfy.sh/owner-alerts-x7", "ntfy"],
    ["https://hooks.slack.com/services/T0/B0/xyz", "slack"],
    ["https://discord.com/api/webhooks/123/abc", "discord"],
    ["https://discordapp.com/api/webhooks/123/abc", "discord"],
    ["https://ptb.discord.com/api/v10/webhooks/123/abc", "discord"],
    ["https://discord.com/channels/123/456", "json"],
    ["https://hooks.slack.com.example.net/services/T0/B0/xyz", "json"],
    ["https://ntfy.example.com/alerts", "json"],
    ["https://alerts.example.com/hook", "json"],
    ["not a url", "json"],
  ])("%s: %s", (url, format) => {
    expect(alertFormat(url)).toBe(format);
  });

  it("the setting wins", () => {
    expect(alertFormat("https://ntfy.example.com/alerts", "ntfy")).toBe("ntfy");
    expect(alertFormat("https://hooks.slack.com/services/T0/B0/xyz", "json")).toBe("json");
  });
});

const refusing = (providerText: string, hint = "reconnect the Gmail service in EmailJS, Email Services") =>
  alertText({ kind: "provider_refusing", status: 412, providerText, hint });

describe("alertText", () => {
  it("a refusal names the status, the provider's words and the hint", () => {
    expect(refusing("Gmail_API: Invalid grant")).toEqual({
      title: "Contact form: EmailJS refuses messages (412)",
      body: `EmailJS answered 412: "Gmail_API: Invalid grant". New messages are kept and sent once it accepts them. To fix: reconnect the Gmail service in EmailJS, Email Services.`,
    });
    expect(refusing("", "").body).toBe(
      "EmailJS answered 412. New messages are kept and sent once it accepts them.",
    );
  });

  it("the provider's words lose anything like an address, their line breaks and their length", () => {
    const { body } = refusing(
      `Recipient\n  <Jane.Doe+x@example.com> refused; from @someone ${"x".repeat(400)}`,
    );
    expect(body).not.toMatch(/@|Jane/);
    expect(body).toContain(`"Recipient [address] refused; from [address] xxx`);
    const quoted = body.slice(body.indexOf('"') + 1, body.indexOf('"', body.indexOf('"') + 1));
    expect(quoted).toHaveLength(200);
    expect(quoted.endsWith("…")).toBe(true);
  });

  it("counts in words that fit", () => {
    expect(alertText({ kind: "provider_back", waiting: 0 }).body).toBe("No message is waiting.");
    expect(alertText({ kind: "provider_back", waiting: 1 }).body).toMatch(/^1 message waiting\./);
    expect(alertText({ kind: "messages_waiting", count: 1, oldestHours: 0.4 })).toEqual({
      title: "Contact form: 1 message waiting",
      body: expect.stringContaining("1 message kept after EmailJS failed, the oldest for under an hour."),
    });
    expect(alertText({ kind: "messages_waiting", count: 3, oldestHours: 1.2 }).body).toContain("for 1 hour.");
    expect(alertText({ kind: "spam_digest", count: 1, day: "2026-11-25" }).title).toBe(
      "Contact form: 1 message kept as spam on 2026-11-25",
    );
  });

  it("the quota at 80% warns, at 100% says new messages are kept, and names what raises it", () => {
    const day = alertText({ kind: "quota", percent: 80, used: 80, limit: 100, period: "day" });
    expect(day.title).toBe("Contact form: 80% of the daily send limit used");
    expect(day.body).toContain("Past 100, new messages are kept until the next day, then sent by themselves");
    expect(day.body).toContain("raise CONTACT_DAILY_SEND_LIMIT");
    const month = alertText({ kind: "quota", percent: 100, used: 200, limit: 200, period: "month" });
    expect(month.title).toBe("Contact form: 100% of the monthly send limit used");
    expect(month.body).toContain("The limit is reached: new messages are kept");
    expect(month.body).toContain("until the next month");
  });

  it("every title is printable ASCII (ntfy sends it as a header)", () => {
    const alerts: OwnerAlert[] = [
      { kind: "provider_refusing", status: 403, providerText: "Zugriff verweigert – ✗", hint: "ß" },
      { kind: "provider_back", waiting: 2 },
      { kind: "messages_waiting", count: 2, oldestHours: 5 },
      { kind: "quota", percent: 100, used: 5, limit: 5, period: "day" },
      { kind: "spam_digest", count: 9, day: "2026-11-25" },
    ];
    for (const alert of alerts) expect(alertText(alert).title).toMatch(/^[\x20-\x7e]+$/);
  });
});
