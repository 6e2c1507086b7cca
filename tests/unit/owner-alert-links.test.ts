// The owner's alerts as each service's request: a link to the owner page on the alerts that ask the owner
// to act, in each format's own way and never one that acts, and the provider's words inert (decision 056).
import { describe, expect, it } from "vitest";
import {
  alertRequest,
  ownerPageUrl,
  type AlertFormat,
  type OwnerAlert,
} from "~/contact/alerts/alerts.server";
import { site } from "~/content/site";

const FORMATS: AlertFormat[] = ["ntfy", "slack", "discord", "json"];
const PAGE = "https://owner.example.test/owner";

const HOSTILE =
  "limit reached [click here](https://evil.example/login) <https://evil.example|Open> **urgent** @everyone `code`";
/** Hosts a client may link though no ASCII dot joins letters (decision 058). */
const DISGUISED =
  "see ｅｖｉｌ．ｅｘａｍｐｌｅ, evil。example, evil｡example, http：／／0xC6.0x33.0x64.0x07/x, 0306.0063.0144.07, 0x7f.1 or １２７．０．０．１ (plan 2.17 of 1.5, ｊａｎｅ＠ｅｘａｍｐｌｅ．ｃｏｍ ＠ｅｖｅｒｙｏｎｅ)";
const DISGUISED_BROKEN = [
  "see evil[.]example, evil[.]example, evil[.]example,",
  "http[:]//0xC6[.]0x33[.]0x64[.]0x07/x, 0306[.]0063[.]0144[.]07, 0x7f[.]1 or 127[.]0[.]0[.]1",
];
const refusing = (
  providerText: string,
  hint = "reconnect the email service (e.g. Gmail) in EmailJS",
): OwnerAlert => ({
  kind: "provider_refusing",
  status: 400,
  providerText,
  hint,
});

const ALERTS: [OwnerAlert, boolean][] = [
  [refusing("Gmail_API: Invalid grant"), true],
  [{ kind: "provider_pause", status: 429, askedMs: 86_400_000, at: "2026-11-27T10:00:00Z" }, true],
  [{ kind: "messages_waiting", count: 3, oldestHours: 2 }, true],
  [{ kind: "spam_digest", count: 2, day: "2026-11-25" }, true],
  [{ kind: "provider_back", waiting: 2 }, false],
  [{ kind: "quota", percent: 100, used: 5, limit: 5, period: "day" }, false],
];

/** The request as one string, headers and body, with Slack's escapes and JSON's quoting undone. */
function wire(format: AlertFormat, alert: OwnerAlert, page: string | null = PAGE) {
  const { headers, body } = alertRequest(format, alert, page);
  const shown =
    format === "ntfy" ? body : Object.values(JSON.parse(body) as Record<string, unknown>).join("\n");
  return {
    headers,
    body,
    text: shown.replaceAll("&gt;", ">").replaceAll("&lt;", "<").replaceAll("&amp;", "&"),
  };
}

describe("ownerPageUrl", () => {
  it("SITE_URL's origin, else the address the site's content knows, with /owner", () => {
    expect(ownerPageUrl("https://owner.example.test")).toBe(PAGE);
    expect(ownerPageUrl(null)).toBe(`${new URL(site.siteUrl).origin}/owner`);
    expect(ownerPageUrl(null, "http://localhost:3000/some/page")).toBe("http://localhost:3000/owner");
  });

  it("none from an address that is not http(s)", () => {
    expect(ownerPageUrl(null, "not a url")).toBeNull();
    expect(ownerPageUrl(null, "javascript:alert(1)")).toBeNull();
  });
});

describe.each(FORMATS)("%s", (format) => {
  it.each(ALERTS.map(([alert, acts]) => [alert.kind, alert, acts] as const))(
    "%s: a link to the owner page only when it asks the owner to act",
    (_kind, alert, acts) => {
      const { headers, text } = wire(format, alert);
      const links = `${JSON.stringify(headers)}${text}`.match(/https?:\/\/[^\s"<>,]+/g) ?? [];
      expect(new Set(links)).toEqual(new Set(acts ? [PAGE] : []));
    },
  );

  it("no link without an address", () => {
    for (const [alert] of ALERTS) expect(wire(format, alert, null).text).not.toContain("/owner");
  });

  it("the hostile provider text arrives as inert, readable text", () => {
    const { headers, body, text } = wire(format, refusing(HOSTILE));
    // No live URL but the page's, no Slack link or special mention, no masked link, no Markdown header.
    expect(new Set(`${JSON.stringify(headers)}${text}`.match(/https?:\/\/[^\s"<>,]+/g))).toEqual(
      new Set([PAGE]),
    );
    expect(text.replaceAll(`<${PAGE}>`, PAGE)).not.toMatch(/evil\.example|<https?:|<!|\]\(https?:|@everyone/);
    expect(Object.keys(headers).map((name) => name.toLowerCase())).not.toContain("markdown");
    expect(text).toContain("limit reached [click here](https[:]//evil[.]example/login)");
    if (format === "slack" || format === "discord") {
      // The words in a code span, which neither renders, holding no backtick to close it early.
      const span = /`([^`]*)`/.exec(text.slice(text.indexOf("EmailJS answered")))![1]!;
      expect(span).toBe(
        "limit reached [click here](https[:]//evil[.]example/login) <https[:]//evil[.]example|Open> **urgent** [address] 'code'",
      );
      if (format === "slack") expect(body).toContain("&lt;https[:]//evil[.]example|Open&gt;");
    } else {
      expect(text).toContain(
        `EmailJS answered 400: "limit reached [click here](https[:]//evil[.]example/login) <https[:]//evil[.]example|Open> **urgent** [address] \`code\`".`,
      );
    }
  });

  it("every other form of a host is broken too: fullwidth and ideographic dots, hex and octal IPv4", () => {
    const { text } = wire(format, refusing(DISGUISED));
    for (const broken of DISGUISED_BROKEN) expect(text).toContain(broken);
    expect(text).toContain("plan 2.17 of 1.5, [address] [address]");
  });

  it("a hint that repeats the provider's words is inert too; the fix's own words stay readable", () => {
    const hint = 'EmailJS refused two different messages with 400 "see www.evil.example or 203.0.113.9/x"';
    const { text } = wire(format, refusing("", hint));
    expect(text).toContain("see www[.]evil[.]example or 203[.]0[.]113[.]9/x");
    expect(wire(format, refusing("x")).text).toContain("reconnect the email service (e.g. Gmail) in EmailJS");
  });
});

describe("each format's own link", () => {
  const waiting: OwnerAlert = { kind: "messages_waiting", count: 3, oldestHours: 2 };

  it("ntfy: a tap or a view button opens the page; never an http action, the body unchanged", () => {
    const { headers, body } = alertRequest("ntfy", waiting, PAGE);
    expect(headers).toMatchObject({ Click: PAGE, Actions: `view, Owner page, ${PAGE}` });
    expect(headers["Actions"]).not.toMatch(/(^|;)\s*(http|broadcast)\b/);
    expect(body).toBe(alertRequest("ntfy", waiting, null).body);
  });

  it("Slack and Discord: a plain link line after the text", () => {
    const slack = JSON.parse(alertRequest("slack", waiting, PAGE).body) as { text: string };
    expect(slack.text.endsWith(`shows them.\nOwner page: ${PAGE}`)).toBe(true);
    const discord = JSON.parse(alertRequest("discord", waiting, PAGE).body) as { content: string };
    expect(discord.content.endsWith(`shows them.\nOwner page: <${PAGE}>`)).toBe(true);
  });

  it("Discord: the link survives the 2,000-character limit", () => {
    const long = refusing("x".repeat(200), "y".repeat(1_900));
    const { content } = JSON.parse(alertRequest("discord", long, PAGE).body) as { content: string };
    expect(content.length).toBeLessThanOrEqual(2_000);
    expect(content.endsWith(`\nOwner page: <${PAGE}>`)).toBe(true);
  });

  it("json: a url field, the text unchanged", () => {
    const linked = JSON.parse(alertRequest("json", waiting, PAGE).body) as Record<string, unknown>;
    const plain = JSON.parse(alertRequest("json", waiting, null).body) as Record<string, unknown>;
    expect(linked).toEqual({ ...plain, url: PAGE });
  });
});
