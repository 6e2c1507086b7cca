// The limits on a client and its network: refusals, the rate limit, what it may keep or mail (decision 024).
import pg from "pg";
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  type RateLimiterAbstract,
} from "rate-limiter-flexible";
import { canonicalAddress, type AppConfig, type Blocklist } from "~/config.server";
import { looksHeadless, networkKey } from "./client.server";
import type { Admitted, Quotas, StoreAllowance } from "../delivery/port.server";
import type { ContactMessage } from "../form/schema";

export type Refusal =
  | { status: 403; reason: "blocklisted" }
  | { status: 429; reason: "rate_limited"; retryAfterSeconds: number }
  | { status: 451; reason: "headless_browser" };

export type Limits = {
  /** Past the refused-post allowance: the seconds until the next is answered in full, else 0. */
  countRefusal(client: string): Promise<number>;
  admit(request: Request, message: ContactMessage, client: string): Promise<{ refusal: Refusal } | Admitted>;
  quotas: Quotas;
};

const DAY = 24 * 60 * 60;
export const STORED_PER_CLIENT = { max: 3, windowSeconds: DAY };
const STORED_PER_NETWORK = { max: 10, windowSeconds: DAY };
const SPAM_PER_CLIENT = { max: 5, windowSeconds: DAY };
const REFUSALS_PER_CLIENT = { max: 30, windowSeconds: 600 };

type Count = { used: number } | { retryAfterMs: number };
type Allowance = (key: string) => Promise<Count>;

async function consume(limit: RateLimiterAbstract, key: string): Promise<Count> {
  try {
    return { used: (await limit.consume(key)).consumedPoints };
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return { retryAfterMs: rejection.msBeforeNext };
  }
}

export function createLimits(config: AppConfig, limiter: RateLimiters["limiter"]): Limits {
  const rateLimit = limiter(config.rateLimit, "contact");
  const allowance = (limits: AppConfig["rateLimit"], name: string): Allowance => {
    const limit = limiter(limits, name);
    return (key) => consume(limit, key);
  };
  const places =
    (byClient: Allowance, byNetwork: Allowance) =>
    async ({ client, network }: Admitted): Promise<StoreAllowance> => {
      const own = await byClient(client);
      if (!("used" in own) || !("used" in (await byNetwork(network)))) return false;
      return { first: own.used === 1 };
    };
  const stored = places(
    allowance(STORED_PER_CLIENT, "contact-kept"),
    allowance(STORED_PER_NETWORK, "contact-kept-network"),
  );
  const spam = places(
    allowance(SPAM_PER_CLIENT, "contact-spam"),
    allowance(STORED_PER_NETWORK, "contact-spam-network"),
  );
  const refusals = allowance(REFUSALS_PER_CLIENT, "contact-refused");
  const mailedByNetwork = allowance(
    { max: config.networkDailyLimit, windowSeconds: config.networkDaySeconds ?? DAY },
    "contact-mailed-network",
  );

  return {
    async countRefusal(client) {
      const left = await refusals(client);
      return "used" in left ? 0 : Math.ceil(left.retryAfterMs / 1000);
    },
    async admit(request, message, client) {
      if (isBlocked(config.blocklist, message.email))
        return { refusal: { status: 403, reason: "blocklisted" } };
      if (config.blockHeadless && looksHeadless(request)) {
        return { refusal: { status: 451, reason: "headless_browser" } };
      }
      // Last, so refused senders do not use up a real client's allowance.
      const left = await consume(rateLimit, client);
      if (!("used" in left)) {
        const retryAfterSeconds = Math.ceil(left.retryAfterMs / 1000);
        return { refusal: { status: 429, reason: "rate_limited", retryAfterSeconds } };
      }
      return { client, network: networkKey(client) };
    },
    quotas: {
      keep: (sender, isSpam) => (isSpam ? spam(sender) : stored(sender)),
      async networkShare(network) {
        const left = await mailedByNetwork(network);
        return "used" in left ? { ok: true } : { ok: false, retryMs: left.retryAfterMs };
      },
      giveBack: async ({ client }) => void (await rateLimit.reward(client)),
    },
  };
}

export function isBlocked(blocklist: Blocklist, email: string): boolean {
  const { local, domain } = canonicalAddress(email);
  if (blocklist.addresses.has(`${local}@${domain}`)) return true;
  const labels = domain.split(".");
  return labels.some((_, i) => blocklist.domains.has(labels.slice(i).join(".")));
}

export type RateLimiters = {
  where: "postgres" | "memory";
  limiter(limits: AppConfig["rateLimit"], name: string): RateLimiterAbstract;
  close(): Promise<void>;
};

const SHARED_LIMIT_TIMEOUT_MS = 2_000;

export function createRateLimiters(databaseUrl: string | null): RateLimiters {
  const memory = ({ max, windowSeconds }: AppConfig["rateLimit"]) =>
    new RateLimiterMemory({ points: max, duration: windowSeconds });
  if (!databaseUrl) return { where: "memory", limiter: memory, close: async () => {} };
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 2,
    connectionTimeoutMillis: SHARED_LIMIT_TIMEOUT_MS,
    statement_timeout: SHARED_LIMIT_TIMEOUT_MS,
  });
  // A lost idle connection is made anew by the next count; meanwhile the insurance counts.
  pool.on("error", () => {});
  // Each limiter would sweep the whole shared table every 5 minutes: the first one made does it for all.
  let sweeps = true;
  return {
    where: "postgres",
    limiter: (limits, name) => {
      const limiter = new RateLimiterPostgres({
        storeClient: pool,
        storeType: "pool",
        tableName: "rate_limits",
        tableCreated: true, // by the store's migrations
        clearExpiredByTimeout: sweeps,
        keyPrefix: name,
        points: limits.max,
        duration: limits.windowSeconds,
        insuranceLimiter: memory(limits),
      });
      sweeps = false;
      return limiter;
    },
    close: () => pool.end().catch(() => undefined),
  };
}
