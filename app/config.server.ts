// Server configuration: parsed once from the environment when the server
// starts, so a bad value stops the server instead of failing a visitor later.
import path from "node:path";
import * as z from "zod";

export type MailConfig =
  | {
      mode: "relay";
      apiUrl: string;
      publicKey: string;
      serviceId: string;
      templateId: string;
      privateKey?: string;
    }
  | { mode: "outbox"; dir: string };

export type AppConfig = {
  mail: MailConfig;
  rateLimit: { max: number; windowSeconds: number };
  /** Lower-cased sender addresses that are refused. */
  blocklist: ReadonlySet<string>;
  blockHeadless: boolean;
  /** Proxies in front of us; 0 means forwarded headers are ignored. */
  trustProxyHops: number;
  /** Where the contact limit is shared between replicas; null keeps it in this process's memory. */
  redisUrl: string | null;
  port: number;
};

export type ConfigLogger = Pick<Console, "info" | "warn">;

const EMAILJS_IDS = ["EMAILJS_PUBLIC_KEY", "EMAILJS_SERVICE_ID", "EMAILJS_TEMPLATE_ID"] as const;

// docker-compose and .env files often carry `NAME=`: treat empty as unset.
const optional = z.preprocess(
  (value) => (typeof value === "string" && value.trim() === "" ? undefined : value),
  z.string().trim().optional(),
);

const intInRange = (fallback: number, min: number, max: number) =>
  z.preprocess(
    (value) => (value === undefined || value === "" ? String(fallback) : value),
    z.string().regex(/^\d+$/, "must be a whole number").transform(Number).pipe(z.number().min(min).max(max)),
  );

const flag = z.preprocess(
  (value) => (typeof value === "string" ? value.trim().toLowerCase() : "false"),
  z
    .enum(["1", "true", "yes", "on", "0", "false", "no", "off", ""], "must be true or false")
    .transform((value) => ["1", "true", "yes", "on"].includes(value)),
);

const trustProxy = z.preprocess(
  (value) => (typeof value === "string" ? value.trim().toLowerCase() : "0"),
  z.union(
    [
      z.enum(["true", "false", ""]).transform((value) => (value === "true" ? 1 : 0)),
      z
        .string()
        .regex(/^\d{1,2}$/)
        .transform(Number),
    ],
    "must be a hop count (1, 2, ...) or true",
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
  CONTACT_RATE_LIMIT_MAX: intInRange(5, 1, 1_000_000),
  CONTACT_RATE_LIMIT_WINDOW_SECONDS: intInRange(600, 1, 31_536_000),
  CONTACT_BLOCKLIST: optional,
  CONTACT_BLOCK_HEADLESS: flag,
  OUTBOX_DIR: optional,
  TRUST_PROXY: trustProxy,
  REDIS_URL: z.preprocess(
    (value) => (typeof value === "string" && value.trim() === "" ? undefined : value),
    z.url({ protocol: /^rediss?$/, error: "must be a redis:// or rediss:// URL" }).optional(),
  ),
  PORT: intInRange(3000, 1, 65_535),
});

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Parses `env` into the app's configuration; throws ConfigError naming what is wrong. */
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

  const missing = EMAILJS_IDS.filter((name) => !e[name]);
  let mail: MailConfig;
  if (missing.length === 0) {
    mail = {
      mode: "relay",
      apiUrl: e.EMAILJS_API_URL,
      publicKey: e.EMAILJS_PUBLIC_KEY!,
      serviceId: e.EMAILJS_SERVICE_ID!,
      templateId: e.EMAILJS_TEMPLATE_ID!,
      ...(e.EMAILJS_PRIVATE_KEY ? { privateKey: e.EMAILJS_PRIVATE_KEY } : {}),
    };
  } else if (missing.length === EMAILJS_IDS.length) {
    mail = { mode: "outbox", dir: path.resolve(e.OUTBOX_DIR ?? "./outbox") };
    logger.info(
      `[contact] No EmailJS ids set: contact messages are not mailed but written to the outbox at ${mail.dir}`,
    );
  } else {
    throw new ConfigError(
      `EmailJS is partly configured: set all of ${EMAILJS_IDS.join(", ")} or none of them. Missing: ${missing.join(", ")}`,
    );
  }

  if (e.TRUST_PROXY === 0) {
    logger.warn(
      "[contact] TRUST_PROXY is not set: forwarded headers are ignored and all visitors share one rate-limit key. Set it to the number of proxies in front of the app.",
    );
  }

  return {
    mail,
    rateLimit: { max: e.CONTACT_RATE_LIMIT_MAX, windowSeconds: e.CONTACT_RATE_LIMIT_WINDOW_SECONDS },
    blocklist: new Set(
      (e.CONTACT_BLOCKLIST ?? "")
        .split(",")
        .map((address) => address.trim().toLowerCase())
        .filter(Boolean),
    ),
    blockHeadless: e.CONTACT_BLOCK_HEADLESS,
    trustProxyHops: e.TRUST_PROXY,
    redisUrl: e.REDIS_URL ?? null,
    port: e.PORT,
  };
}

/** The configuration the app runs with, read when the server starts. */
export const config: AppConfig = loadConfig(process.env);
