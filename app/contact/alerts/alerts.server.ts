// Short alerts to the owner by webhook (ntfy, Slack, Discord, JSON), never by mail (decisions 041, 056).
import { site } from "~/content/site";
import type { AlertFormat, AlertSettings } from "~/lib/alert-settings.server";
import { writeLogLine } from "~/lib/log-line.server";
import { ADDRESS_LIKE, askedPauseWords, count, providerWords, span } from "../rules/words.server";

export { alertFormat, type AlertFormat } from "~/lib/alert-settings.server";

export type OwnerAlert =
  | { kind: "provider_refusing"; status: number; providerText: string; hint: string }
  | { kind: "provider_back"; waiting: number }
  | { kind: "provider_pause"; status: number; askedMs: number; at: string }
  | { kind: "messages_waiting"; count: number; oldestHours: number }
  | { kind: "quota"; percent: 80 | 100; used: number; limit: number; period: "day" | "month" }
  | { kind: "spam_digest"; count: number; day: string };

export type AlertEvent = {
  outcome: "alert_sent" | "alert_failed";
  kind: OwnerAlert["kind"];
  status: number;
  attempts: number;
  /** Only the host: the rest of a webhook URL is its secret. */
  host: string;
};

export type AlertRetry = { attempts: number; backoffMs: number; timeoutMs: number };

export const DEFAULT_ALERT_RETRY: AlertRetry = { attempts: 3, backoffMs: 500, timeoutMs: 3_000 };

const DOT = /[.\u3002\uFF61\uFE52\u2024]/g;
const ANY_DOT = DOT.source;
const NUMERIC_HOST = new RegExp(
  String.raw`\b(?:0x[\da-f]+|\d+)(?:${ANY_DOT}(?:0x[\da-f]+|\d+)){1,3}\b`,
  "gi",
);
const HEX_OR_OCTAL_PART = new RegExp(String.raw`(?:^|${ANY_DOT})0[x\d]`, "i");
const looksLikeAddress = (run: string) => run.split(DOT).length === 4 || HEX_OR_OCTAL_PART.test(run);
const LABEL_DOT = new RegExp(String.raw`(?<=[\p{L}\p{N}_-])${ANY_DOT}(?=\p{L}[\p{L}\p{N}_-])`, "gu");
const halfWidth = (text: string) =>
  text.replace(/[\uFF01-\uFF5E]/g, (char) => String.fromCharCode(char.charCodeAt(0) - 0xfee0));

/** Words from outside with every scheme and host broken, so no reader makes a link of them (decision 058). */
function defanged(text: string): string {
  return halfWidth(text)
    .replace(ADDRESS_LIKE, "[address]")
    .replaceAll("://", "[:]//")
    .replace(NUMERIC_HOST, (run) => (looksLikeAddress(run) ? run.replace(DOT, "[.]") : run))
    .replace(LABEL_DOT, "[.]");
}

type Quote = (text: string, marks?: string) => string;
const asText: Quote = (text, marks = "") => `${marks}${defanged(text)}${marks}`;
const asCode: Quote = (text) => `\`${defanged(text).replaceAll("`", "'")}\``;

const hours = (value: number) => (value < 1 ? "under an hour" : count(Math.round(value), "hour"));

const RESEND = "They are sent again by themselves; `npm run outbox -- list` shows them.";

/** Names the state and the fix, never a visitor's text or address; titles stay ASCII (an ntfy header). */
export function alertText(alert: OwnerAlert, quote: Quote = asText): { title: string; body: string } {
  switch (alert.kind) {
    case "provider_refusing": {
      const words = providerWords(alert.providerText);
      return {
        title: `Contact form: EmailJS refuses messages (${alert.status})`,
        body: [
          `EmailJS answered ${alert.status}${words ? `: ${quote(words, '"')}` : ""}.`,
          "New messages are kept and sent once it accepts them.",
          alert.hint ? `To fix: ${quote(alert.hint)}.` : "",
        ]
          .filter(Boolean)
          .join(" "),
      };
    }
    case "provider_back":
      return {
        title: "Contact form: EmailJS accepts messages again",
        body:
          alert.waiting === 0
            ? "No message is waiting."
            : `${count(alert.waiting, "message")} waiting. ${RESEND}`,
      };
    case "provider_pause":
      return {
        title: `Contact form: EmailJS asks to wait ${span(alert.askedMs)}`,
        body: `EmailJS answered ${alert.status}. ${askedPauseWords({ at: alert.at, ms: alert.askedMs })}. Meanwhile new messages are kept; they are sent by themselves. If EmailJS keeps asking, check the account's plan and limits in the EmailJS dashboard.`,
      };
    case "messages_waiting":
      return {
        title: `Contact form: ${count(alert.count, "message")} waiting`,
        body: `${count(alert.count, "message")} kept after EmailJS failed, the oldest for ${hours(alert.oldestHours)}. ${RESEND}`,
      };
    case "quota": {
      const fix =
        alert.period === "day"
          ? "To mail more, raise CONTACT_DAILY_SEND_LIMIT."
          : "To mail more, raise the monthly limit (the EmailJS plan's quota).";
      const state =
        alert.percent === 100
          ? `The limit is reached: new messages are kept until the next ${alert.period}, then sent by themselves.`
          : `Past ${alert.limit}, new messages are kept until the next ${alert.period}, then sent by themselves.`;
      return {
        title: `Contact form: ${alert.percent}% of the ${alert.period === "day" ? "daily" : "monthly"} send limit used`,
        body: `${alert.used} of ${alert.limit} messages mailed this ${alert.period}. ${state} ${fix}`,
      };
    }
    case "spam_digest":
      return {
        title: `Contact form: ${count(alert.count, "message")} kept as spam on ${alert.day}`,
        body: "They are held, not mailed. `npm run outbox -- spam list` shows them; `npm run outbox -- spam release ID` mails one that is not spam.",
      };
  }
}

const BY_KIND: Record<OwnerAlert["kind"], { priority: string; tags: string; asksToAct: boolean }> = {
  provider_refusing: { priority: "high", tags: "warning", asksToAct: true },
  provider_back: { priority: "default", tags: "white_check_mark", asksToAct: false },
  provider_pause: { priority: "high", tags: "pause_button", asksToAct: true },
  messages_waiting: { priority: "default", tags: "hourglass", asksToAct: true },
  quota: { priority: "default", tags: "bar_chart", asksToAct: false },
  spam_digest: { priority: "low", tags: "wastebasket", asksToAct: true },
};

export function ownerPageUrl(siteUrl: string | null, known: string = site.siteUrl): string | null {
  const url = URL.parse(siteUrl ?? known);
  return url && (url.protocol === "https:" || url.protocol === "http:") ? `${url.origin}/owner` : null;
}

const LINK_LABEL = "Owner page";
const DISCORD_CONTENT_MAX = 2000;

const slackEscape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export type AlertRequest = { headers: Record<string, string>; body: string };

const json = (value: unknown): AlertRequest => ({
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(value),
});

export function alertRequest(
  format: AlertFormat,
  alert: OwnerAlert,
  ownerPage: string | null = null,
): AlertRequest {
  const { priority, tags, asksToAct } = BY_KIND[alert.kind];
  const link = asksToAct ? ownerPage : null;
  const { title, body } = alertText(alert, format === "slack" || format === "discord" ? asCode : asText);
  switch (format) {
    case "ntfy": {
      const urgent = alert.kind === "quota" && alert.percent === 100;
      return {
        headers: {
          "Content-Type": "text/plain; charset=utf-8",
          Title: title,
          Priority: urgent ? "high" : priority,
          Tags: tags,
          ...(link ? { Click: link, Actions: `view, ${LINK_LABEL}, ${link}` } : {}),
        },
        body,
      };
    }
    case "slack":
      return json({
        text: slackEscape(`*${title}*\n${body}${link ? `\n${LINK_LABEL}: ${link}` : ""}`),
      });
    case "discord": {
      const head = `**${title}**\n`;
      const tail = link ? `\n${LINK_LABEL}: <${link}>` : "";
      return json({
        content: `${head}${body.slice(0, DISCORD_CONTENT_MAX - head.length - tail.length)}${tail}`,
        allowed_mentions: { parse: [] },
      });
    }
    case "json": {
      const numbers = Object.entries(alert).filter(([, value]) => typeof value === "number");
      return json({
        event: alert.kind,
        title,
        text: body,
        ...Object.fromEntries(numbers),
        ...(link ? { url: link } : {}),
      });
    }
  }
}

async function post(url: string, request: AlertRequest, timeoutMs: number): Promise<number> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "manual",
    });
    await response.body?.cancel().catch(() => undefined);
    return response.status;
  } catch {
    return 0;
  }
}

const accepted = (status: number) => status >= 200 && status < 300;
const worthRetrying = (status: number) => status === 0 || status === 429 || status >= 500;

/** Sends one alert with a bounded retry; never throws. */
export function createAlertSender(
  settings: AlertSettings | null,
  options: { log?: (event: AlertEvent) => void; retry?: AlertRetry; ownerPage?: string | null } = {},
): (alert: OwnerAlert) => Promise<boolean> {
  if (!settings) return async () => false;
  const { url, format } = settings;
  const host = URL.parse(url)?.host ?? "";
  const log = options.log ?? ((event: AlertEvent) => writeLogLine("contact", event));
  const retry = options.retry ?? DEFAULT_ALERT_RETRY;

  async function send(alert: OwnerAlert): Promise<boolean> {
    const request = alertRequest(format, alert, options.ownerPage ?? null);
    let status = 0;
    let attempts = 0;
    do {
      if (attempts > 0) await new Promise((resolve) => setTimeout(resolve, retry.backoffMs));
      attempts += 1;
      status = await post(url, request, retry.timeoutMs);
    } while (!accepted(status) && worthRetrying(status) && attempts < retry.attempts);
    const ok = accepted(status);
    log({ outcome: ok ? "alert_sent" : "alert_failed", kind: alert.kind, status, attempts, host });
    return ok;
  }

  return (alert) => send(alert).catch(() => false);
}
