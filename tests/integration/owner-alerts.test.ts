// The owner's alerts through real HTTP fakes of ntfy, Slack, Discord and plain JSON: each alert in each
// documented format, nothing of a visitor in them, a bounded retry, and the URL's secret never logged.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createAlertSender,
  type AlertEvent,
  type AlertFormat,
  type AlertRetry,
  type OwnerAlert,
} from "~/contact/alerts/alerts.server";
import { startWebhookFake, type WebhookFake } from "../support/webhook-fakes";

const FORMATS: AlertFormat[] = ["ntfy", "slack", "discord", "json"];

// As the relay would build them; the 412's provider text names the visitor's address.
const ALERTS: { alert: OwnerAlert; facts: string[] }[] = [
  {
    alert: {
      kind: "provider_refusing",
      status: 403,
      providerText: "API calls are disabled for non-browser applications",
      hint: "enable 'Allow EmailJS API for non-browser applications' in EmailJS, Account -> Security",
    },
    facts: ["403", "API calls are disabled", "Allow EmailJS API for non-browser applications", "Security"],
  },
  {
    alert: {
      kind: "provider_refusing",
      status: 412,
      providerText:
        "Gmail_API: Invalid grant. Please reconnect your Gmail account (to: Jane.Doe+work@example.com)",
      hint: "reconnect the Gmail service in EmailJS, Email Services",
    },
    facts: ["412", "Invalid grant", "reconnect the Gmail service in EmailJS, Email Services"],
  },
  { alert: { kind: "provider_back", waiting: 4 }, facts: ["accepts messages again", "4 messages"] },
  { alert: { kind: "messages_waiting", count: 7, oldestHours: 26.4 }, facts: ["7 messages", "26 hours"] },
  {
    alert: { kind: "quota", percent: 80, used: 80, limit: 100, period: "day" },
    facts: ["80%", "80 of 100", "CONTACT_DAILY_SEND_LIMIT"],
  },
  {
    alert: { kind: "quota", percent: 100, used: 200, limit: 200, period: "month" },
    facts: ["100%", "200 of 200", "monthly"],
  },
  {
    alert: { kind: "spam_digest", count: 12, day: "2026-11-25" },
    facts: ["12 messages", "2026-11-25", "spam list"],
  },
];

const FAST: AlertRetry = { attempts: 3, backoffMs: 10, timeoutMs: 5_000 };

const fakes = {} as Record<AlertFormat, WebhookFake>;
beforeAll(async () => {
  for (const format of FORMATS) fakes[format] = await startWebhookFake(format);
});
afterEach(() => FORMATS.forEach((format) => fakes[format].reset()));
afterAll(() => Promise.all(FORMATS.map((format) => fakes[format].close())));

function sender(format: AlertFormat, retry: AlertRetry = FAST) {
  const events: AlertEvent[] = [];
  const send = createAlertSender({ url: fakes[format].url, format }, { log: (e) => events.push(e), retry });
  return { send, events };
}

/** What the owner reads, as each service shows it. */
function shownText(format: AlertFormat, fake: WebhookFake): string {
  const last = fake.accepted.at(-1)!;
  const body = last.body as Record<string, string>;
  if (format === "ntfy") return `${String(last.headers["title"])}\n${last.rawBody}`;
  if (format === "slack")
    return body.text!.replaceAll("&gt;", ">").replaceAll("&lt;", "<").replaceAll("&amp;", "&");
  if (format === "discord") return body.content!;
  return `${body.title}\n${body.text}`;
}

describe.each(FORMATS)("%s", (format) => {
  it.each(
    ALERTS.map(({ alert, facts }) => [`${alert.kind} ${Object.values(alert)[1]}`, alert, facts] as const),
  )("%s is accepted, names the state and the fix, and carries no address", async (_name, alert, facts) => {
    const { send, events } = sender(format);
    await expect(send(alert)).resolves.toBe(true);

    const fake = fakes[format];
    expect(fake.accepted).toHaveLength(1);
    const text = shownText(format, fake);
    for (const fact of facts) expect(text).toContain(fact);
    const request = fake.accepted[0]!;
    expect(`${request.rawBody}${JSON.stringify(request.headers)}`).not.toMatch(/@|Jane|Doe/i);
    expect(events).toEqual([
      {
        outcome: "alert_sent",
        kind: alert.kind,
        status: format === "ntfy" || format === "slack" ? 200 : 204,
        attempts: 1,
        host: new URL(fake.url).host,
      },
    ]);
  });
});

describe("each format's own fields", () => {
  const refusing = ALERTS[0]!.alert;

  it("ntfy: the message as text, Title, Priority and Tags headers", async () => {
    await sender("ntfy").send(refusing);
    const { headers, rawBody } = fakes.ntfy.accepted[0]!;
    expect(headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(headers).toMatchObject({
      title: "Contact form: EmailJS refuses messages (403)",
      priority: "high",
      tags: "warning",
    });
    expect(rawBody).toMatch(/^EmailJS answered 403: "API calls are disabled/);
  });

  it("Slack: mrkdwn text with &, < and > escaped", async () => {
    await sender("slack").send(refusing);
    const { headers, body } = fakes.slack.accepted[0]!;
    expect(headers["content-type"]).toBe("application/json");
    const { text } = body as { text: string };
    expect(text).toMatch(/^\*Contact form: EmailJS refuses messages \(403\)\*\n/);
    expect(text).toContain("Account -&gt; Security");
    expect(text).not.toContain("->");
  });

  it("Discord: content within 2000 characters, no mention pings", async () => {
    await sender("discord").send(refusing);
    const body = fakes.discord.accepted[0]!.body as { content: string; allowed_mentions: unknown };
    expect(body.content.startsWith("**Contact form: EmailJS refuses messages (403)**\n")).toBe(true);
    expect(body.allowed_mentions).toEqual({ parse: [] });
  });

  it("json: the kind as event, the title, the text and the alert's numbers", async () => {
    await sender("json").send({ kind: "quota", percent: 80, used: 80, limit: 100, period: "day" });
    expect(fakes.json.accepted[0]!.body).toEqual({
      event: "quota",
      title: "Contact form: 80% of the daily send limit used",
      text: expect.stringContaining("80 of 100 messages mailed this day."),
      percent: 80,
      used: 80,
      limit: 100,
    });
  });
});

describe("the fakes hold each service's documented form", () => {
  const post = (fake: WebhookFake, body: string, headers: Record<string, string> = {}) =>
    fetch(fake.url, { method: "POST", headers, body });

  it.each([
    ["ntfy", "no Title header", "Backup done", { "Content-Type": "text/plain" }],
    ["ntfy", "an empty message", " ", { Title: "Backup" }],
    ["slack", "a form body", "text=hello", { "Content-Type": "application/x-www-form-urlencoded" }],
    ["slack", "no text", JSON.stringify({ blocks: [] }), { "Content-Type": "application/json" }],
    [
      "discord",
      "content past 2000",
      JSON.stringify({ content: "x".repeat(2001) }),
      { "Content-Type": "application/json" },
    ],
    ["discord", "no content", JSON.stringify({ username: "relay" }), { "Content-Type": "application/json" }],
    ["json", "not JSON", "{event:", { "Content-Type": "application/json" }],
  ] as const)("%s refuses %s with 400 and keeps nothing", async (format, _what, body, headers) => {
    const fake = fakes[format];
    expect((await post(fake, body, headers)).status).toBe(400);
    expect(fake.accepted).toEqual([]);
  });

  it("a sender whose format does not match the service is refused at once: a 400 is final", async () => {
    const events: AlertEvent[] = [];
    const send = createAlertSender(
      { url: fakes.discord.url, format: "slack" },
      { log: (e) => events.push(e), retry: FAST },
    );
    await expect(send(ALERTS[2]!.alert)).resolves.toBe(false);
    expect(fakes.discord.received).toBe(1);
    expect(events).toEqual([expect.objectContaining({ outcome: "alert_failed", status: 400, attempts: 1 })]);
  });
});

describe("bounded retry", () => {
  it("two 500s, then accepted on the third attempt", async () => {
    fakes.slack.failNext(2);
    const { send, events } = sender("slack");
    await expect(send(ALERTS[3]!.alert)).resolves.toBe(true);
    expect(fakes.slack.received).toBe(3);
    expect(fakes.slack.accepted).toHaveLength(1);
    expect(events).toEqual([expect.objectContaining({ outcome: "alert_sent", status: 200, attempts: 3 })]);
  });

  it("always failing: false after the default 3 attempts, logged with the host and not the secret path", async () => {
    fakes.discord.failNext(100);
    const lines: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((line: unknown) => lines.push(String(line)) > 0);
    const send = createAlertSender({ url: fakes.discord.url, format: "discord" });
    await expect(send(ALERTS[0]!.alert)).resolves.toBe(false);
    vi.restoreAllMocks();

    expect(fakes.discord.received).toBe(3);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      time: expect.any(String),
      event: "contact",
      outcome: "alert_failed",
      kind: "provider_refusing",
      status: 500,
      attempts: 3,
      host: new URL(fakes.discord.url).host,
    });
    expect(lines[0]).not.toContain(fakes.discord.secret);
    expect(lines[0]).not.toContain("/api/webhooks");
  });

  it("an endpoint that never answers: false after the attempts, each cut short by its timeout", async () => {
    fakes.ntfy.hang();
    const { send, events } = sender("ntfy", { attempts: 2, backoffMs: 10, timeoutMs: 500 });
    await expect(send(ALERTS[4]!.alert)).resolves.toBe(false);
    expect(fakes.ntfy.received).toBe(2);
    expect(events).toEqual([
      { outcome: "alert_failed", kind: "quota", status: 0, attempts: 2, host: new URL(fakes.ntfy.url).host },
    ]);
  });

  it("nothing listening: false, never a throw", async () => {
    const gone = await startWebhookFake("json");
    await gone.close();
    const events: AlertEvent[] = [];
    const send = createAlertSender(
      { url: gone.url, format: "json" },
      { log: (e) => events.push(e), retry: FAST },
    );
    await expect(send(ALERTS[6]!.alert)).resolves.toBe(false);
    expect(events).toEqual([expect.objectContaining({ outcome: "alert_failed", status: 0, attempts: 3 })]);
  });
});

it("without settings (no OWNER_ALERT_URL): false, no request and no log line", async () => {
  const events: AlertEvent[] = [];
  const send = createAlertSender(null, { log: (e) => events.push(e) });
  for (const { alert } of ALERTS) await expect(send(alert)).resolves.toBe(false);
  expect(FORMATS.map((format) => fakes[format].received)).toEqual([0, 0, 0, 0]);
  expect(events).toEqual([]);
});
