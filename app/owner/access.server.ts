// The owner's record: one-time enrolment links, passkeys and sessions, in the shared state so every instance sees
// them (decision 054); the ceremonies that add to it are in ceremony.server.ts (decision 058).
import { createHash, randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { createCookie } from "@remix-run/node";
import type { AppConfig } from "~/config.server";
import type { SharedState } from "~/contact/index.server";
import { writeLogLine } from "~/lib/log-line.server";

export const LINK_MINUTES = 15;
/** Wrong tokens tried while a link is open before it closes (decision 058). */
export const LINK_TRIES = 10;
const SESSION_HOURS = 12;
export const OWNER_PATH = "/owner";

type Passkey = {
  id: string;
  publicKey: string;
  counter: number;
  transports?: string[];
  addedAt: string;
  lastUsedAt: string | null;
};
export type Flash = { ok: boolean; text: string };
/** Links, sessions and used challenges by the SHA-256 of their secret: the record alone opens nothing. */
type OwnerRecord = {
  passkeys: Passkey[];
  links: Record<string, { expires: string; usedAt: string | null; wrongTries?: number }>;
  /** The challenges of verified answers, until they expire: an answer is taken once. */
  spent: Record<string, { expires: string }>;
  sessions: Record<string, { expires: string; passkey: string; flash: Flash | null }>;
};
const EMPTY: OwnerRecord = { passkeys: [], links: {}, spent: {}, sessions: {} };
const RECORD = "owner";

export type Session = { key: string; passkey: string; flash: Flash | null };
export type Refused = { ok: false; status: number; error: string };
/** A link's state as a token finds it: open (by its key), or why not. */
type LinkCheck = { open: true; link: string } | { open: false; why: "unknown" | "used" | "closed" };

const hash = (secret: string) => createHash("sha256").update(secret).digest("base64url");
const secret = () => randomBytes(32).toString("base64url");
const later = (ms: number) => new Date(Date.now() + ms).toISOString();
const past = (time: string) => Date.parse(time) <= Date.now();
const closed = (link: OwnerRecord["links"][string]) => (link.wrongTries ?? 0) >= LINK_TRIES;

/** Drops what has expired; used and closed links are kept until they expire, to be refused as such. */
function pruned(record: OwnerRecord): OwnerRecord {
  const live = <T extends { expires: string }>(entries: Record<string, T> = {}) =>
    Object.fromEntries(Object.entries(entries).filter(([, entry]) => !past(entry.expires)));
  return {
    passkeys: record.passkeys,
    links: live(record.links),
    spent: live(record.spent),
    sessions: live(record.sessions),
  };
}

function isLoopback(hostname: string) {
  const host = hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\./.test(host);
}

/** Why the owner cannot enrol or sign in on this configuration; null when they can. */
export function whyNotReady(config: Pick<AppConfig, "sessionSecretSet" | "siteUrl">): string | null {
  if (!config.sessionSecretSet)
    return "SESSION_SECRET is not set: a session signed with a secret made for this process would end at a restart and be unknown to other instances. Set SESSION_SECRET to 32 or more random characters and restart.";
  if (!config.siteUrl)
    return "SITE_URL is not set: a passkey is bound to the site's address. Set SITE_URL to the address the owner opens, such as https://example.com, and restart.";
  const url = new URL(config.siteUrl);
  if (url.protocol === "http:" && !isLoopback(url.hostname))
    return "SITE_URL is plain HTTP on a public address: a session cookie would cross the network readable. Serve the site over HTTPS and set SITE_URL to its https:// address.";
  if (isIP(url.hostname.replace(/^\[|\]$/g, "")))
    return "SITE_URL is an IP address: browsers bind passkeys to a domain name only. Set SITE_URL to the site's name.";
  return null;
}

/**
 * Why this request may not sign in, beside the configuration: it came through a proxy that TRUST_PROXY does not
 * name, so every visitor would be one client and share one limit with the owner (decision 058).
 */
export function whyNotReadyFor(config: Pick<AppConfig, "trustProxy">, request: Request): string | null {
  const forwarded = request.headers.has("x-forwarded-for") || request.headers.has("forwarded");
  if (config.trustProxy !== 0 || !forwarded) return null;
  return "TRUST_PROXY is not set, yet this request came through a proxy (it carries X-Forwarded-For): every visitor would count as the proxy's one address, so strangers' sign-in attempts would use up the owner's. Set TRUST_PROXY to the proxy's addresses (TRUST_PROXY=10.0.0.0/8, loopback, ...) and restart.";
}

/** Options for a cookie of the owner's page: HttpOnly, SameSite=Strict, Path=/owner, signed with SESSION_SECRET. */
export function ownerCookie(config: AppConfig, name: string, maxAgeSeconds: number) {
  const site = config.siteUrl ? new URL(config.siteUrl) : null;
  return createCookie(name, {
    httpOnly: true,
    sameSite: "strict",
    path: OWNER_PATH,
    maxAge: maxAgeSeconds,
    // Plain HTTP is allowed for loopback only (whyNotReady), where the browser would not send a Secure cookie.
    secure: site?.protocol !== "http:",
    secrets: [config.sessionSecret],
  });
}

export const ownerLog = (step: string, outcome: string, reason?: string) =>
  writeLogLine("owner", { step, outcome, ...(reason ? { reason } : {}) });

export function createOwnerAccess(config: AppConfig, state: SharedState) {
  const cookie = ownerCookie(config, "owner_session", SESSION_HOURS * 3600);
  const change = <R>(decide: (record: OwnerRecord) => { next: OwnerRecord | null; result: R }) =>
    state.change(RECORD, EMPTY, (current) => decide(pruned(current)));
  const read = async () => pruned(await state.read(RECORD, EMPTY));

  return {
    /** A one-time link that registers a passkey on the device that opens it (`outbox owner-link`). */
    async newLink(): Promise<{ url: string; expires: string } | { error: string }> {
      const why = whyNotReady(config);
      if (why) return { error: why };
      const token = secret();
      const expires = later(LINK_MINUTES * 60_000);
      await change((record) => {
        record.links[hash(token)] = { expires, usedAt: null };
        return { next: record, result: null };
      });
      // In the fragment: never sent to a server, so never in a log or a Referer.
      return { url: `${config.siteUrl}${OWNER_PATH}/enrol#${token}`, expires };
    },

    /** A token's link, if open; a wrong token counts against every open link, which closes at LINK_TRIES. */
    checkLink: (token: string) =>
      change<LinkCheck>((record) => {
        const key = hash(token);
        const link = record.links[key];
        if (link) {
          if (link.usedAt) return { next: null, result: { open: false, why: "used" } };
          if (closed(link)) return { next: null, result: { open: false, why: "closed" } };
          return { next: null, result: { open: true, link: key } };
        }
        const open = Object.values(record.links).filter((entry) => !entry.usedAt && !closed(entry));
        for (const entry of open) entry.wrongTries = (entry.wrongTries ?? 0) + 1;
        return { next: open.length ? record : null, result: { open: false, why: "unknown" } };
      }),

    /** Uses an open link up for a new passkey; false when it was used, closed or expired meanwhile. */
    useLink: (link: string, passkey: Omit<Passkey, "addedAt" | "lastUsedAt">) =>
      change((record) => {
        const entry = record.links[link];
        if (!entry || entry.usedAt || closed(entry)) return { next: null, result: false };
        entry.usedAt = new Date().toISOString();
        record.passkeys.push({ ...passkey, addedAt: entry.usedAt, lastUsedAt: null });
        return { next: record, result: true };
      }),

    /** Takes the challenge of a verified answer, once: false when it was taken before (a replay). */
    spend: (challenge: string, expires: string) =>
      change((record) => {
        const key = hash(challenge);
        if (record.spent[key]) return { next: null, result: false };
        record.spent[key] = { expires };
        return { next: record, result: true };
      }),

    passkey: async (id: string) => (await read()).passkeys.find((passkey) => passkey.id === id) ?? null,

    /** A signed-in passkey's new counter and time of use. */
    used: (id: string, counter: number) =>
      change((record) => {
        const kept = record.passkeys.find((passkey) => passkey.id === id);
        if (!kept) return { next: null, result: null };
        kept.counter = counter;
        kept.lastUsedAt = new Date().toISOString();
        return { next: record, result: null };
      }),

    /** A new session for a passkey; the Set-Cookie that holds it. */
    async startSession(passkey: string): Promise<string> {
      const id = secret();
      await change((record) => {
        record.sessions[hash(id)] = { expires: later(SESSION_HOURS * 3_600_000), passkey, flash: null };
        return { next: record, result: null };
      });
      return cookie.serialize(id);
    },

    /** The signed-in session of this request, its flash taken; null when none, forged or ended. */
    async session(request: Request): Promise<Session | null> {
      if (whyNotReady(config)) return null;
      const id: unknown = await cookie.parse(request.headers.get("Cookie"));
      if (typeof id !== "string") return null;
      const key = hash(id);
      return change((record) => {
        const session = record.sessions[key];
        if (!session) return { next: null, result: null };
        const flash = session.flash;
        session.flash = null;
        return { next: flash ? record : null, result: { key, passkey: session.passkey, flash } };
      });
    },

    /** What the next page of this session shows once. */
    flash: (session: Session, flash: Flash) =>
      change((record) => {
        const kept = record.sessions[session.key];
        if (!kept) return { next: null, result: null };
        kept.flash = flash;
        return { next: record, result: null };
      }),

    /** Ends it on the server; the answer's Set-Cookie clears it in the browser. */
    async signOut(session: Session): Promise<string> {
      await change((record) => {
        delete record.sessions[session.key];
        return { next: record, result: null };
      });
      ownerLog("sign_out", "ok");
      return cookie.serialize("", { maxAge: 0 });
    },

    passkeys: async () =>
      (await read()).passkeys.map(({ id, addedAt, lastUsedAt }) => ({ id, addedAt, lastUsedAt })),

    /** Removes a passkey and ends the sessions it opened. */
    removePasskey: (id: string) =>
      change((record) => {
        const passkeys = record.passkeys.filter((passkey) => passkey.id !== id);
        if (passkeys.length === record.passkeys.length) return { next: null, result: false };
        const sessions = Object.entries(record.sessions).filter(([, session]) => session.passkey !== id);
        ownerLog("remove_passkey", "ok");
        return { next: { ...record, passkeys, sessions: Object.fromEntries(sessions) }, result: true };
      }),
  };
}

export type OwnerAccess = ReturnType<typeof createOwnerAccess>;
