// A local, explainable spam score (decisions 029, 044): at the threshold a message is kept, not mailed.
import { createHash } from "node:crypto";
import { disposableEmailBlocklistSet } from "disposable-email-domains-js";
import { namesAutomation } from "./client.server";
import type { ContactMessage } from "../form/schema";
import type { Store } from "../store/store.server";

const SIGNAL_WEIGHTS = {
  extra_link: 1,
  many_links: 3,
  link_shortener: 2,
  markup_link: 3,
  link_in_name_or_subject: 3,
  disposable_sender: 2,
  automation_browser: 1,
  not_a_browser: 3,
  same_text_elsewhere: 1,
  same_text_many_clients: 3,
  same_link_many_clients: 3,
} satisfies Record<string, number>;

type SpamSignal = keyof typeof SIGNAL_WEIGHTS;

const LINK_ALLOWANCE = { usual: 1, atPersonsPace: 3 };
const PERSONS_PACE = { formSeconds: 10, charsPerSecond: 10 };
const LINKS_REMEMBERED = 5;

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"']+|\bwww\.[a-z0-9-]+(?:\.[a-z0-9-]+)+[^\s<>"']*/giu;
const HAS_URL = new RegExp(URL_PATTERN.source, "iu");
const TRAILING_PUNCTUATION = /[.,;:!?)\]]+$/u;
const BARE_DOMAIN = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}$/iu;
const SHORTENERS = new Set([
  "bit.ly", "t.co", "tinyurl.com", "goo.gl", "ow.ly", "is.gd", "buff.ly", "cutt.ly", "rebrand.ly",
  "shorturl.at", "tiny.cc", "rb.gy", "t.ly", "s.id", "v.gd", "bl.ink", "lnkd.in", "shorte.st", "adf.ly",
]); // prettier-ignore
const MARKUP_LINK = /<a\s[^>]*href|\[url[=\]]|\[link[=\]]/iu;

const CAMPAIGN_WINDOW_SECONDS = 60 * 60;

type SpamInput = {
  message: ContactMessage;
  request: Request;
  client: string;
  requestSignals: boolean;
  sentOrigin: boolean;
  composeSeconds?: number | null;
};

export function createSpamScore(db: Store) {
  const seen = (keys: string[], client: string) =>
    db.seenBy(keys, client, Date.now(), CAMPAIGN_WINDOW_SECONDS * 1_000);
  return async (input: SpamInput): Promise<{ score: number; signals: SpamSignal[] }> => {
    const { message, request, client, requestSignals, sentOrigin, composeSeconds = null } = input;
    const signals: SpamSignal[] = [];
    const text = message.message;
    const links = [...text.matchAll(URL_PATTERN)].map(([link]) => parseLink(link));
    const allowance = atPersonsPace(text, links, composeSeconds)
      ? LINK_ALLOWANCE.atPersonsPace
      : LINK_ALLOWANCE.usual;
    if (links.length - allowance >= 2) signals.push("many_links");
    else if (links.length - allowance === 1) signals.push("extra_link");
    if (links.some(({ url }) => SHORTENERS.has(hostOf(url)))) signals.push("link_shortener");
    if (MARKUP_LINK.test(text)) signals.push("markup_link");
    if (HAS_URL.test(`${message.name} ${message.subject}`) || BARE_DOMAIN.test(message.name)) {
      signals.push("link_in_name_or_subject");
    }
    if (isDisposable(message.email)) signals.push("disposable_sender");
    if (requestSignals) {
      if (namesAutomation(request)) signals.push("automation_browser");
      if (!looksLikeBrowserPost(request.headers, sentOrigin)) signals.push("not_a_browser");
    }
    const site = hostOf(new URL(request.url));
    const elsewhere = links.flatMap(({ url }) => (url && hostOf(url) !== site ? [linkKey(url)] : []));
    const [textOthers = 0, ...linkOthers] = await seen(
      [textKey(text), ...new Set(elsewhere)].slice(0, 1 + LINKS_REMEMBERED),
      client,
    );
    if (textOthers >= 9) signals.push("same_text_many_clients");
    else if (textOthers >= 3) signals.push("same_text_elsewhere");
    if (linkOthers.some((others) => others >= 9)) signals.push("same_link_many_clients");
    return { score: signals.reduce((sum, signal) => sum + SIGNAL_WEIGHTS[signal], 0), signals };
  };
}

type Link = { text: string; url: URL | null };

function parseLink(raw: string): Link {
  const text = raw.replace(TRAILING_PUNCTUATION, "");
  try {
    return { text, url: new URL(/^https?:/i.test(text) ? text : `http://${text}`) };
  } catch {
    return { text, url: null };
  }
}

function atPersonsPace(text: string, links: Link[], seconds: number | null): boolean {
  if (seconds === null) return false;
  const typed = text.length - links.reduce((sum, link) => sum + link.text.length, 0);
  return seconds >= PERSONS_PACE.formSeconds + typed / PERSONS_PACE.charsPerSecond;
}

function looksLikeBrowserPost(headers: Headers, sentOrigin: boolean): boolean {
  const has = (name: string) => (headers.get(name) ?? "").trim() !== "";
  return (
    has("user-agent") && has("accept-language") && (sentOrigin || has("origin") || has("sec-fetch-site"))
  );
}

const hostOf = (url: URL | null) => url?.hostname.replace(/^www\./, "") ?? "";
const digest = (value: string) => createHash("sha256").update(value).digest("base64url").slice(0, 32);
const textKey = (text: string) => `same-text:${digest(text.toLowerCase().replace(/\s+/gu, " ").trim())}`;
const linkKey = (url: URL) =>
  `same-link:${digest(`${hostOf(url)}${url.pathname.replace(/\/+$/u, "")}`.toLowerCase())}`;

// Made once: the library's own isDisposableEmailDomain builds this set anew on every call.
const DISPOSABLE_DOMAINS = disposableEmailBlocklistSet();

function isDisposable(email: string): boolean {
  const labels = email
    .slice(email.lastIndexOf("@") + 1)
    .toLowerCase()
    .split(".");
  return labels.slice(0, -1).some((_, i) => DISPOSABLE_DOMAINS.has(labels.slice(i).join(".")));
}
