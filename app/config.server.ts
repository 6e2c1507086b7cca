// Server configuration, read once per process at start so a bad value stops it (decision 032).
import { randomBytes } from "node:crypto";
import path from "node:path";
import proxyAddr from "proxy-addr";
import * as z from "zod";
import { alertEnv, alertSettings, type AlertSettings } from "~/lib/alert-settings.server";
import { flag, intInRange, optional } from "~/lib/env-values.server";
import { relayLimits, relayLimitsEnv, type RelayLimits } from "~/lib/relay-limits.server";

export type MailConfig = (
  | {
      mode: "relay";
      apiUrl: string;
      publicKey: string;
      serviceId: string;
      templateId: string;
      privateKey?: string;
    }
  | { mode: "outbox"; dir: string }
) & {
  /** OUTBOX_DIR: the SQLite store's folder (without DATABASE_URL), and the outbox of messages without EmailJS ids. */
  outboxDir: string;
};

export type AppConfig = RelayLimits & {
  mail: MailConfig;
  /** Where the owner's alerts go: a webhook, never the mail provider (decision 041). */
  alerts: AlertSettings | null;
  rateLimit: { max: number; windowSeconds: number };
  blocklist: Blocklist;
  blockHeadless: boolean;
  botChecks: { enabled: boolean; proofMinSeconds: number; confirmMinSeconds: number; maxAgeMinutes: number };
  spamThreshold: number;
  /** Decision 030; in seconds but `forHours`. */
  redelivery: { firstSeconds: number; uncertainSeconds: number; maxSeconds: number; forHours: number };
  /** As Express's `trust proxy` takes it: a hop count (0: none) or addresses (decision 034). */
  trustProxy: number | string[];
  /** DATABASE_URL: the store on PostgreSQL, for every replica; null: the SQLite file in OUTBOX_DIR. A secret. */
  databaseUrl: string | null;
  port: number;
  host: string | null;
  /** Signs the theme and flash cookies (decision 018). */
  sessionSecret: string;
  /** SESSION_SECRET was set: the owner's sign-in needs it (decision 054). */
  sessionSecretSet: boolean;
  /** The site's public address (SITE_URL), for links in the owner's alerts and the owner's sign-in; null: unset. */
  siteUrl: string | null;
};

type ConfigLogger = Pick<Console, "info" | "warn">;

const EMAILJS_IDS = ["EMAILJS_PUBLIC_KEY", "EMAILJS_SERVICE_ID", "EMAILJS_TEMPLATE_ID"] as const;

const MIN_SECRET_LENGTH = 32;

// Made once per process, so every configuration one process builds agrees.
const PROCESS_SECRET = randomBytes(32).toString("hex");

// docker-compose and .env files often carry `NAME=`: treat empty as unset.
const trustProxy = z.preprocess(
  (value) => (typeof value === "string" ? value.trim().toLowerCase() : "0"),
  z.union(
    [
      z.enum(["true", "false", ""]).transform((value) => (value === "true" ? 1 : 0)),
      z
        .string()
        .regex(/^\d{1,2}$/)
        .transform(Number),
      z
        .string()
        .transform((value) => value.split(",").map((entry) => entry.trim()))
        .refine((entries) => {
          try {
            proxyAddr.compile(entries);
            return true;
          } catch {
            return false;
          }
        }),
    ],
    "must be a hop count (1, 2, ...), true, or the proxies' addresses (loopback, 10.0.0.0/8, ...)",
  ),
);

const envSchema = z.object({
  EMAILJS_PUBLIC_KEY: optional,
  EMAILJS_SERVICE_ID: optional,
  EMAILJS_TEMPLATE_ID: optional,
  EMAILJS_PRIVATE_KEY: optional,
  EMAILJS_API_URL: z.preprocess(
    (value) => (value === undefined || value === "" ? "https://api.emailjs.com" : value),
    z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
      .transform((url) => url.replace(/\/+$/, "")),
  ),
  ...alertEnv,
  CONTACT_RATE_LIMIT_MAX: intInRange(5, 1, 1_000_000),
  CONTACT_RATE_LIMIT_WINDOW_SECONDS: intInRange(600, 1, 31_536_000),
  CONTACT_BLOCKLIST: optional,
  CONTACT_BLOCK_HEADLESS: flag(false),
  CONTACT_BOT_CHECKS: flag(true),
  CONTACT_PROOF_MIN_SECONDS: intInRange(3, 0, 600),
  CONTACT_CONFIRM_MIN_SECONDS: intInRange(2, 0, 600),
  CONTACT_PROOF_MAX_MINUTES: intInRange(60, 1, 24 * 60),
  CONTACT_SPAM_THRESHOLD: intInRange(3, 1, 100),
  ...relayLimitsEnv,
  CONTACT_REDELIVER_FIRST_SECONDS: intInRange(60, 1, 86_400),
  CONTACT_REDELIVER_UNCERTAIN_SECONDS: intInRange(900, 1, 86_400),
  CONTACT_REDELIVER_MAX_SECONDS: intInRange(3_600, 1, 86_400),
  CONTACT_REDELIVER_FOR_HOURS: intInRange(72, 1, 24 * 60),
  OUTBOX_DIR: optional,
  TRUST_PROXY: trustProxy,
  DATABASE_URL: z.preprocess(
    (value) => (typeof value === "string" && value.trim() === "" ? undefined : value),
    z.url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// or postgresql:// URL" }).optional(),
  ),
  SITE_URL: z.preprocess(
    (value) => (typeof value === "string" && value.trim() === "" ? undefined : value),
    z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL, the site's address" })
      .transform((url) => new URL(url).origin)
      .optional(),
  ),
  PORT: intInRange(3000, 1, 65_535),
  HOST: optional,
  SESSION_SECRET: z.preprocess(
    (value) => (value === "" ? undefined : value),
    z
      .string()
      .min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters (openssl rand -hex 32)`)
      .optional(),
  ),
});

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function loadConfig(
  env: Record<string, string | undefined>,
  logger: ConfigLogger = console,
): AppConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    // Name the variable and the rule, never the value: it may be a secret.
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
    throw new ConfigError(`Invalid environment: ${problems.join("; ")}`);
  }
  const e = parsed.data;

  const blocklist = parseBlocklist(e.CONTACT_BLOCKLIST ?? "");
  if (!blocklist.ok) throw new ConfigError(`Invalid environment: ${blocklist.error}`);
  const missing = EMAILJS_IDS.filter((name) => !e[name]);
  if (missing.length > 0 && missing.length < EMAILJS_IDS.length) {
    throw new ConfigError(
      `EmailJS is partly configured: set all of ${EMAILJS_IDS.join(", ")} or none of them. Missing: ${missing.join(", ")}`,
    );
  }
  const outboxDir = path.resolve(e.OUTBOX_DIR ?? "./outbox");
  let mail: MailConfig;
  if (missing.length === 0) {
    mail = {
      mode: "relay",
      apiUrl: e.EMAILJS_API_URL,
      publicKey: e.EMAILJS_PUBLIC_KEY!,
      serviceId: e.EMAILJS_SERVICE_ID!,
      templateId: e.EMAILJS_TEMPLATE_ID!,
      ...(e.EMAILJS_PRIVATE_KEY ? { privateKey: e.EMAILJS_PRIVATE_KEY } : {}),
      outboxDir,
    };
  } else {
    mail = { mode: "outbox", dir: outboxDir, outboxDir };
    logger.info(
      `[contact] No EmailJS ids set: contact messages are not mailed but written to the outbox at ${mail.dir}`,
    );
  }

  if (typeof e.TRUST_PROXY === "number" && e.TRUST_PROXY > 0 && !e.HOST) {
    logger.warn(
      "[contact] TRUST_PROXY is a hop count and the server listens on every address: whoever reaches it directly can name any client in X-Forwarded-For. Give the proxies' addresses instead (TRUST_PROXY=10.0.0.0/8, loopback, ...) or set HOST.",
    );
  }
  if (e.TRUST_PROXY === 0) {
    logger.warn(
      "[contact] TRUST_PROXY is not set: forwarded headers are ignored and each visitor is the address that connects. Behind a proxy that address is the proxy's, so set TRUST_PROXY to the proxies' addresses (TRUST_PROXY=10.0.0.0/8, loopback, ...).",
    );
  }

  if (!e.DATABASE_URL) {
    logger.info(
      "[contact] DATABASE_URL is not set: kept messages, used proofs, the send budget and the provider's state are kept in OUTBOX_DIR/outbox.sqlite, the contact limits by this process. Several replicas need DATABASE_URL.",
    );
  }
  if (env.REDIS_URL?.trim()) {
    logger.warn(
      "[contact] REDIS_URL is no longer read: everything the replicas share is in the store (DATABASE_URL, or OUTBOX_DIR's SQLite file). Remove it.",
    );
  }

  if (e.SESSION_SECRET === undefined) {
    logger.warn(
      "[session] SESSION_SECRET is not set: cookies are signed with a random secret made for this process, so replicas do not share them and a restart forgets them. Set it to 32 or more random characters.",
    );
  }

  return {
    mail,
    alerts: alertSettings(e),
    rateLimit: { max: e.CONTACT_RATE_LIMIT_MAX, windowSeconds: e.CONTACT_RATE_LIMIT_WINDOW_SECONDS },
    blocklist: blocklist.blocklist,
    blockHeadless: e.CONTACT_BLOCK_HEADLESS,
    botChecks: {
      enabled: e.CONTACT_BOT_CHECKS,
      proofMinSeconds: e.CONTACT_PROOF_MIN_SECONDS,
      confirmMinSeconds: e.CONTACT_CONFIRM_MIN_SECONDS,
      maxAgeMinutes: e.CONTACT_PROOF_MAX_MINUTES,
    },
    spamThreshold: e.CONTACT_SPAM_THRESHOLD,
    ...relayLimits(e),
    redelivery: {
      firstSeconds: e.CONTACT_REDELIVER_FIRST_SECONDS,
      uncertainSeconds: e.CONTACT_REDELIVER_UNCERTAIN_SECONDS,
      maxSeconds: e.CONTACT_REDELIVER_MAX_SECONDS,
      forHours: e.CONTACT_REDELIVER_FOR_HOURS,
    },
    trustProxy: e.TRUST_PROXY,
    databaseUrl: e.DATABASE_URL ?? null,
    port: e.PORT,
    host: e.HOST ?? null,
    sessionSecret: e.SESSION_SECRET ?? PROCESS_SECRET,
    sessionSecretSet: e.SESSION_SECRET !== undefined,
    siteUrl: e.SITE_URL ?? null,
  };
}

export type Blocklist = { addresses: ReadonlySet<string>; domains: ReadonlySet<string> };

const isAddress = (value: string) => z.email().safeParse(value).success;

export function canonicalAddress(email: string): { local: string; domain: string } {
  const at = email.lastIndexOf("@");
  const local = email.slice(0, at).toLowerCase().replace(/\+.*$/, "");
  return { local, domain: email.slice(at + 1).toLowerCase() };
}

/** Names bad entries by position, not value: other people's addresses stay out of the logs. */
function parseBlocklist(raw: string): { ok: true; blocklist: Blocklist } | { ok: false; error: string } {
  const addresses = new Set<string>();
  const domains = new Set<string>();
  const bad: number[] = [];
  raw.split(",").forEach((part, index) => {
    const entry = part.trim();
    if (entry === "") return;
    if (entry.startsWith("@") && isAddress(`x${entry}`)) {
      domains.add(entry.slice(1).toLowerCase());
    } else if (isAddress(entry)) {
      const { local, domain } = canonicalAddress(entry);
      addresses.add(`${local}@${domain}`);
    } else {
      bad.push(index + 1);
    }
  });
  if (bad.length > 0) {
    return {
      ok: false,
      error: `CONTACT_BLOCKLIST: ${bad.length === 1 ? "entry" : "entries"} ${bad.join(", ")} of the comma-separated list ${bad.length === 1 ? "is" : "are"} neither an address (name@example.com) nor a domain (@example.com)`,
    };
  }
  return { ok: true, blocklist: { addresses, domains } };
}

const READ = Symbol.for("portfolio.config");

const notes: [keyof ConfigLogger, string][] = [];

/** Read by whichever copy of this module loads first (decision 032); notes wait for `announceConfig`. */
export const config: AppConfig = ((globalThis as { [READ]?: AppConfig })[READ] ??= loadConfig(process.env, {
  info: (line) => notes.push(["info", line]),
  warn: (line) => notes.push(["warn", line]),
}));

export function announceConfig(logger: ConfigLogger = console) {
  for (const [level, line] of notes.splice(0)) logger[level](line);
}
