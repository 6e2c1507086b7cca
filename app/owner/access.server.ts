// The owner's sign-in: one-time enrolment links, passkeys (WebAuthn by @simplewebauthn/server) and sessions
// kept on the server, all in the shared state so every instance sees them (decision 054).
import { createHash, randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { createCookie } from "@remix-run/node";
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { isoBase64URL } from "@simplewebauthn/server/helpers";
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { AppConfig } from "~/config.server";
import { createRateLimiter } from "~/contact/limits.server";
import type { SharedState } from "~/contact/shared-state.server";
import { writeLogLine } from "~/lib/log-line.server";
import type { RedisLink } from "~/lib/redis.server";

export const LINK_MINUTES = 15;
const SESSION_HOURS = 12;
const CHALLENGE_MINUTES = 5;
/** Pending ceremonies kept at most; the oldest goes first, so a flood cannot grow the record. */
const MAX_CHALLENGES = 50;
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
/** Links and sessions by the SHA-256 of their secret: the record alone opens nothing. */
type OwnerRecord = {
  passkeys: Passkey[];
  links: Record<string, { expires: string; usedAt: string | null }>;
  challenges: Record<string, { purpose: "enrol" | "sign_in"; link: string | null; expires: string }>;
  sessions: Record<string, { expires: string; passkey: string; flash: Flash | null }>;
};
const EMPTY: OwnerRecord = { passkeys: [], links: {}, challenges: {}, sessions: {} };
const RECORD = "owner";

export type Session = { key: string; passkey: string; flash: Flash | null };
export type Refused = { ok: false; status: number; error: string };

const hash = (secret: string) => createHash("sha256").update(secret).digest("base64url");
const secret = () => randomBytes(32).toString("base64url");
const later = (ms: number) => new Date(Date.now() + ms).toISOString();
const past = (time: string) => Date.parse(time) <= Date.now();

/** Drops what has expired; used links are kept until they expire, to be refused as used. */
function pruned(record: OwnerRecord): OwnerRecord {
  const live = <T extends { expires: string }>(entries: Record<string, T>) =>
    Object.fromEntries(Object.entries(entries).filter(([, entry]) => !past(entry.expires)));
  return {
    passkeys: record.passkeys,
    links: live(record.links),
    challenges: Object.fromEntries(Object.entries(live(record.challenges)).slice(-MAX_CHALLENGES)),
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

export function createOwnerAccess(config: AppConfig, state: SharedState, redis: RedisLink | null) {
  const site = config.siteUrl ? new URL(config.siteUrl) : null;
  const cookie = createCookie("owner_session", {
    httpOnly: true,
    sameSite: "strict",
    path: OWNER_PATH,
    maxAge: SESSION_HOURS * 3600,
    // Plain HTTP is allowed for loopback only (whyNotReady), where the browser would not send a Secure cookie.
    secure: site?.protocol !== "http:",
    secrets: [config.sessionSecret],
  });
  const attempts = {
    sign_in: createRateLimiter({ max: 20, windowSeconds: 900 }, redis, "owner-sign-in"),
    enrol: createRateLimiter({ max: 10, windowSeconds: 900 }, redis, "owner-link"),
  };
  const change = <R>(decide: (record: OwnerRecord) => { next: OwnerRecord | null; result: R }) =>
    state.change(RECORD, EMPTY, (current) => decide(pruned(current)));
  const log = (step: string, outcome: string, reason?: string) =>
    writeLogLine("owner", { step, outcome, ...(reason ? { reason } : {}) });
  const refuse = (step: string, status: number, reason: string, error: string): Refused => {
    log(step, "refused", reason);
    return { ok: false, status, error };
  };

  /** One attempt of this client; a refusal when it has made too many. */
  async function allowed(kind: keyof typeof attempts, client: string): Promise<Refused | null> {
    try {
      await (attempts[kind] as RateLimiterAbstract).consume(client);
      return null;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const minutes = Math.ceil(rejection.msBeforeNext / 60_000);
      return refuse(kind, 429, "too_many_attempts", `Too many attempts. Try again in ${minutes} min.`);
    }
  }

  const ready = (step: string): Refused | null => {
    const why = whyNotReady(config);
    return why ? refuse(step, 503, "not_ready", why) : null;
  };

  const LINK_REFUSED =
    "This link cannot be used: it was used already, has expired or is wrong. Run `outbox owner-link` for a new one.";

  async function startSession(passkey: string): Promise<string> {
    const id = secret();
    await change((record) => {
      record.sessions[hash(id)] = { expires: later(SESSION_HOURS * 3_600_000), passkey, flash: null };
      return { next: record, result: null };
    });
    return cookie.serialize(id);
  }

  /** A ceremony begun: its challenge waits for the browser's answer, a few minutes at most. */
  const addChallenge = (challenge: string, purpose: "enrol" | "sign_in", link: string | null) =>
    change((record) => {
      record.challenges[challenge] = { purpose, link, expires: later(CHALLENGE_MINUTES * 60_000) };
      return { next: record, result: null };
    });

  /** Takes a pending challenge once: a ceremony's answer is accepted at most once. */
  const takeChallenge = (challenge: string, purpose: "enrol" | "sign_in") =>
    change((record) => {
      const pending = record.challenges[challenge];
      if (!pending || pending.purpose !== purpose) return { next: null, result: null };
      delete record.challenges[challenge];
      return { next: record, result: pending };
    });

  const challengeOf = (response: { response: { clientDataJSON: string } }) => {
    try {
      const data = JSON.parse(isoBase64URL.toUTF8String(response.response.clientDataJSON)) as {
        challenge?: unknown;
      };
      return typeof data.challenge === "string" ? data.challenge : null;
    } catch {
      return null;
    }
  };

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

    async enrolOptions(token: string, client: string) {
      const refused = ready("enrol") ?? (await allowed("enrol", client));
      if (refused) return refused;
      const link = hash(token);
      const { passkeys, valid } = await state.read(RECORD, EMPTY).then((record) => ({
        passkeys: record.passkeys,
        valid: Boolean(record.links[link] && !record.links[link].usedAt && !past(record.links[link].expires)),
      }));
      if (!valid) return refuse("enrol", 403, "bad_link", LINK_REFUSED);
      const options = await generateRegistrationOptions({
        rpName: `${site!.hostname} owner`,
        rpID: site!.hostname,
        userName: "owner",
        userDisplayName: "The site's owner",
        attestationType: "none",
        excludeCredentials: passkeys.map(({ id, transports }) => ({ id, transports })),
        authenticatorSelection: { residentKey: "required", userVerification: "required" },
        timeout: CHALLENGE_MINUTES * 60_000,
      });
      await addChallenge(options.challenge, "enrol", link);
      return { ok: true as const, options };
    },

    /** Registers the passkey and uses the link up; the answer signs the owner in. */
    async enrol(response: RegistrationResponseJSON, client: string) {
      const refused = ready("enrol") ?? (await allowed("enrol", client));
      if (refused) return refused;
      const challenge = challengeOf(response);
      const pending = challenge ? await takeChallenge(challenge, "enrol") : null;
      if (!pending?.link) return refuse("enrol", 403, "unknown_challenge", LINK_REFUSED);
      const verified = await verifyRegistrationResponse({
        response,
        expectedChallenge: challenge!,
        expectedOrigin: config.siteUrl!,
        expectedRPID: site!.hostname,
        requireUserVerification: true,
      }).catch(() => null);
      if (!verified?.verified)
        return refuse("enrol", 400, "not_verified", "The passkey could not be verified.");
      const { credential } = verified.registrationInfo;
      const used = await change((record) => {
        const link = record.links[pending.link!];
        if (!link || link.usedAt) return { next: null, result: false };
        link.usedAt = new Date().toISOString();
        record.passkeys.push({
          id: credential.id,
          publicKey: isoBase64URL.fromBuffer(credential.publicKey),
          counter: credential.counter,
          transports: credential.transports,
          addedAt: link.usedAt,
          lastUsedAt: null,
        });
        return { next: record, result: true };
      });
      if (!used) return refuse("enrol", 403, "bad_link", LINK_REFUSED);
      log("enrol", "ok");
      return { ok: true as const, cookie: await startSession(credential.id) };
    },

    async signInOptions(client: string) {
      const refused = ready("sign_in") ?? (await allowed("sign_in", client));
      if (refused) return refused;
      const options = await generateAuthenticationOptions({
        rpID: site!.hostname,
        userVerification: "required",
        timeout: CHALLENGE_MINUTES * 60_000,
      });
      await addChallenge(options.challenge, "sign_in", null);
      return { ok: true as const, options };
    },

    async signIn(response: AuthenticationResponseJSON, client: string) {
      const refused = ready("sign_in") ?? (await allowed("sign_in", client));
      if (refused) return refused;
      const challenge = challengeOf(response);
      const pending = challenge ? await takeChallenge(challenge, "sign_in") : null;
      const failed = "This passkey is not one of the owner's, or the sign-in took too long. Try again.";
      if (!pending) return refuse("sign_in", 403, "unknown_challenge", failed);
      const { passkeys } = await state.read(RECORD, EMPTY);
      const passkey = passkeys.find(({ id }) => id === response.id);
      if (!passkey) return refuse("sign_in", 403, "unknown_passkey", failed);
      const verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge!,
        expectedOrigin: config.siteUrl!,
        expectedRPID: site!.hostname,
        credential: {
          id: passkey.id,
          publicKey: isoBase64URL.toBuffer(passkey.publicKey),
          counter: passkey.counter,
          transports: passkey.transports,
        },
        requireUserVerification: true,
      }).catch(() => null);
      if (!verified?.verified) return refuse("sign_in", 403, "not_verified", failed);
      await change((record) => {
        const kept = record.passkeys.find(({ id }) => id === passkey.id);
        if (!kept) return { next: null, result: null };
        kept.counter = verified.authenticationInfo.newCounter;
        kept.lastUsedAt = new Date().toISOString();
        return { next: record, result: null };
      });
      log("sign_in", "ok");
      return { ok: true as const, cookie: await startSession(passkey.id) };
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
      log("sign_out", "ok");
      return cookie.serialize("", { maxAge: 0 });
    },

    passkeys: async () =>
      (await state.read(RECORD, EMPTY)).passkeys.map(({ id, addedAt, lastUsedAt }) => ({
        id,
        addedAt,
        lastUsedAt,
      })),

    /** Removes a passkey and ends the sessions it opened. */
    removePasskey: (id: string) =>
      change((record) => {
        const passkeys = record.passkeys.filter((passkey) => passkey.id !== id);
        if (passkeys.length === record.passkeys.length) return { next: null, result: false };
        const sessions = Object.entries(record.sessions).filter(([, session]) => session.passkey !== id);
        log("remove_passkey", "ok");
        return { next: { ...record, passkeys, sessions: Object.fromEntries(sessions) }, result: true };
      }),
  };
}

export type OwnerAccess = ReturnType<typeof createOwnerAccess>;
