// A local, explainable spam score (decision 029): at the threshold a message is kept, not mailed.
import { createHash } from "node:crypto";
import { disposableEmailBlocklistSet } from "disposable-email-domains-js";
import type { RedisLink } from "~/lib/redis.server";
import { redisOrMemory } from "~/lib/redis-or-memory.server";
import { namesAutomation } from "./client.server";
import type { ContactMessage } from "./schema";

type SpamSignal =
  | "two_links"
  | "many_links"
  | "link_shortener"
  | "markup_link"
  | "link_in_name_or_subject"
  | "disposable_sender"
  | "automation_browser"
  | "not_a_browser"
  | "same_text_elsewhere"
  | "same_text_many_clients";

const SIGNAL_WEIGHTS: Record<SpamSignal, number> = {
  two_links: 1,
  many_links: 3,
  link_shortener: 2,
  markup_link: 3,
  link_in_name_or_subject: 3,
  disposable_sender: 2,
  automation_browser: 1,
  not_a_browser: 3,
  same_text_elsewhere: 1,
  same_text_many_clients: 3,
};

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"']+|\bwww\.[a-z0-9-]+(?:\.[a-z0-9-]+)+[^\s<>"']*/giu;
const HAS_URL = new RegExp(URL_PATTERN.source, "iu");
const BARE_DOMAIN = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}$/iu;
const SHORTENERS = new Set([
  "bit.ly", "t.co", "tinyurl.com", "goo.gl", "ow.ly", "is.gd", "buff.ly", "cutt.ly", "rebrand.ly",
  "shorturl.at", "tiny.cc", "rb.gy", "t.ly", "s.id", "v.gd", "bl.ink", "lnkd.in", "shorte.st", "adf.ly",
]); // prettier-ignore
const MARKUP_LINK = /<a\s[^>]*href|\[url[=\]]|\[link[=\]]/iu;

const SAME_TEXT_WINDOW_SECONDS = 60 * 60;

type SpamInput = {
  message: ContactMessage;
  request: Request;
  client: string;
  requestSignals: boolean;
  sentOrigin: boolean;
};

type SpamScore = { score: number; signals: SpamSignal[] };

export function createSpamScore(redis: RedisLink | null) {
  const seen = createTextMemory(redis);
  return async ({ message, request, client, requestSignals, sentOrigin }: SpamInput): Promise<SpamScore> => {
    const signals: SpamSignal[] = [];
    const links = [...message.message.matchAll(URL_PATTERN)].map(([link]) => link);
    if (links.length >= 3) signals.push("many_links");
    else if (links.length === 2) signals.push("two_links");
    if (links.some((link) => SHORTENERS.has(hostOf(link)))) signals.push("link_shortener");
    if (MARKUP_LINK.test(message.message)) signals.push("markup_link");
    if (HAS_URL.test(`${message.name} ${message.subject}`) || BARE_DOMAIN.test(message.name)) {
      signals.push("link_in_name_or_subject");
    }
    if (isDisposable(message.email)) signals.push("disposable_sender");
    if (requestSignals) {
      const headers = request.headers;
      if (namesAutomation(request)) signals.push("automation_browser");
      if (!looksLikeBrowserPost(headers, sentOrigin)) signals.push("not_a_browser");
    }
    const others = await seen(message.message, client);
    if (others >= 9) signals.push("same_text_many_clients");
    else if (others >= 3) signals.push("same_text_elsewhere");
    return { score: signals.reduce((sum, signal) => sum + SIGNAL_WEIGHTS[signal], 0), signals };
  };
}

function looksLikeBrowserPost(headers: Headers, sentOrigin: boolean): boolean {
  const has = (name: string) => (headers.get(name) ?? "").trim() !== "";
  return (
    has("user-agent") && has("accept-language") && (sentOrigin || has("origin") || has("sec-fetch-site"))
  );
}

function hostOf(link: string): string {
  try {
    return new URL(/^https?:/i.test(link) ? link : `http://${link}`).hostname.replace(/^www\./, "");
  } catch {
    return "";
  }
}

// Made once: the library's own isDisposableEmailDomain builds this set anew on every call.
const DISPOSABLE_DOMAINS = disposableEmailBlocklistSet();

function isDisposable(email: string): boolean {
  const labels = email
    .slice(email.lastIndexOf("@") + 1)
    .toLowerCase()
    .split(".");
  return labels.slice(0, -1).some((_, i) => DISPOSABLE_DOMAINS.has(labels.slice(i).join(".")));
}

function createTextMemory(redis: RedisLink | null) {
  const remember = redisOrMemory<Set<string>>(redis, {
    max: 10_000,
    ttlMs: SAME_TEXT_WINDOW_SECONDS * 1_000,
  });
  return async (text: string, client: string): Promise<number> => {
    const normalized = text.toLowerCase().replace(/\s+/gu, " ").trim();
    const hash = createHash("sha256").update(normalized).digest("base64url").slice(0, 32);
    const key = `portfolio:same-text:${hash}`;
    return remember(
      async (store) => {
        const [, [, count]] = (await store
          .multi()
          .sadd(key, client)
          .scard(key)
          .expire(key, SAME_TEXT_WINDOW_SECONDS)
          .exec()) as [unknown, [unknown, number]];
        return Math.max(0, count - 1);
      },
      (seen) => {
        const clients = seen.get(hash) ?? new Set<string>();
        clients.add(client);
        seen.set(hash, clients);
        return clients.size - 1;
      },
    );
  };
}
