// What a message must pass before it is sent: the original mail library's refusals (403, 429, 451) on the
// server, where a bot cannot skip them, the honeypot, who "one client" is, and the per-client limits.
import { isIPv4, isIPv6 } from "node:net";
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from "rate-limiter-flexible";
import { canonicalAddress, type AppConfig, type Blocklist } from "~/config.server";
import type { RedisLink } from "~/lib/redis.server";
import { HONEYPOT_FIELD } from "./contract";
import type { ContactMessage } from "./schema";
import type { KeepAllowance } from "./store.server";

export type GuardRefusal =
  | { status: 403; reason: "blocklisted" }
  | { status: 429; reason: "rate_limited"; retryAfterSeconds: number }
  | { status: 451; reason: "headless_browser" };

const HEADLESS_UA = /headless|phantomjs|puppeteer|playwright|selenium|webdriver/i;

/** Like @emailjs/browser's blockHeadless: an automation User-Agent, or no User-Agent or Accept-Language. */
export function looksHeadless(request: Request): boolean {
  const userAgent = request.headers.get("user-agent") ?? "";
  const languages = request.headers.get("accept-language") ?? "";
  return userAgent.trim() === "" || languages.trim() === "" || HEADLESS_UA.test(userAgent);
}

export function honeypotFilled(form: FormData): boolean {
  return form.getAll(HONEYPOT_FIELD).some((value) => typeof value !== "string" || value.trim() !== "");
}

export type Guards = {
  /** The first refusal that applies, or null; an allowed message uses one unit of its client's quota. */
  check(request: Request, message: ContactMessage, client: string): Promise<GuardRefusal | null>;
  /** Gives the unit back (decisions 008, 024). */
  refund(client: string): Promise<void>;
  /** Whether this client, and its network, may leave one more undelivered message; uses a unit of each. */
  mayKeep(client: string): Promise<KeepAllowance>;
  /** The same for suspected spam (decision 029). */
  mayKeepSpam(client: string): Promise<KeepAllowance>;
  /** Whether the site may mail one more message today; uses one unit of the daily budget. */
  mayMail(): Promise<boolean>;
  /** Counts a refused post; past the allowance, seconds until the next is answered in full, else 0. */
  refused(client: string): Promise<number>;
};

const DAY = 24 * 60 * 60;
/** What one client may leave in the undelivered folder in a day (decision 024)... */
export const KEPT_PER_CLIENT = { max: 3, windowSeconds: DAY };
/** ...and its network (an IPv4 /24, an IPv6 /48), which holds many such clients. */
export const KEPT_PER_NETWORK = { max: 10, windowSeconds: DAY };
/** What one client may leave in the spam folder in a day (decision 029). */
export const SPAM_PER_CLIENT = { max: 5, windowSeconds: DAY };
/** Refused posts one client gets answered in full (a page, a field's message) in ten minutes. */
export const REFUSALS_PER_CLIENT = { max: 30, windowSeconds: 600 };

export function createGuards(config: AppConfig, redis: RedisLink | null): Guards {
  const limiter = createRateLimiter(config.rateLimit, redis, "contact");
  /** Uses one unit; the points used so far, or null when none was left. */
  const allowance = (limits: AppConfig["rateLimit"], name: string) => {
    const limit = createRateLimiter(limits, redis, name);
    return async (key: string): Promise<{ used: number } | { retryAfterMs: number }> => {
      try {
        return { used: (await limit.consume(key)).consumedPoints };
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        return { retryAfterMs: rejection.msBeforeNext };
      }
    };
  };
  const keptByClient = allowance(KEPT_PER_CLIENT, "contact-kept");
  const keptByNetwork = allowance(KEPT_PER_NETWORK, "contact-kept-network");
  const spamByClient = allowance(SPAM_PER_CLIENT, "contact-spam");
  const spamByNetwork = allowance(KEPT_PER_NETWORK, "contact-spam-network");
  const dailyBudget = allowance({ max: config.dailySendLimit, windowSeconds: DAY }, "contact-sent");
  const refusals = allowance(REFUSALS_PER_CLIENT, "contact-refused");

  const keep =
    (byClient: typeof keptByClient, byNetwork: typeof keptByNetwork) =>
    async (client: string): Promise<KeepAllowance> => {
      const own = await byClient(client);
      if (!("used" in own) || !("used" in (await byNetwork(networkKey(client))))) return false;
      return { first: own.used === 1 };
    };

  const check: Guards["check"] = async (request, message, client) => {
    if (isBlocked(config.blocklist, message.email)) {
      return { status: 403, reason: "blocklisted" };
    }
    if (config.blockHeadless && looksHeadless(request)) {
      return { status: 451, reason: "headless_browser" };
    }
    // Last, so refused senders do not use up a real client's allowance.
    try {
      await limiter.consume(client);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return {
        status: 429,
        reason: "rate_limited",
        retryAfterSeconds: Math.ceil(rejection.msBeforeNext / 1000),
      };
    }
    return null;
  };

  return {
    check,
    refund: async (client) => void (await limiter.reward(client)),
    mayKeep: keep(keptByClient, keptByNetwork),
    mayKeepSpam: keep(spamByClient, spamByNetwork),
    mayMail: async () => "used" in (await dailyBudget("site")),
    refused: async (client) => {
      const left = await refusals(client);
      return "used" in left ? 0 : Math.ceil(left.retryAfterMs / 1000);
    },
  };
}

// ---- The block list ----
/** Whether mail from `email` (already a valid address) is refused. */
export function isBlocked(blocklist: Blocklist, email: string): boolean {
  const { local, domain } = canonicalAddress(email);
  if (blocklist.addresses.has(`${local}@${domain}`)) return true;
  // The domain itself or any parent: "@example.com" also covers "a.example.com".
  const labels = domain.split(".");
  return labels.some((_, i) => blocklist.domains.has(labels.slice(i).join(".")));
}

// ---- Who one client is ----
// The server resolves the address (Express's req.ip under TRUST_PROXY, decision 034); this keys it.
export const UNKNOWN_CLIENT_KEY = "unknown";

export function clientKey(clientAddress: string | undefined): string {
  return clientAddress ? addressKey(clientAddress) : UNKNOWN_CLIENT_KEY;
}

/** The network a client key belongs to: an IPv4 /24 or an IPv6 /48, which one site or provider holds. */
export function networkKey(client: string): string {
  const v4 = /^(\d+\.\d+\.\d+)\.\d+$/.exec(client);
  if (v4) return `${v4[1]}.0/24`;
  const v6 = /^([0-9a-f]+:[0-9a-f]+:[0-9a-f]+):[0-9a-f]+::\/64$/.exec(client);
  return v6 ? `${v6[1]}::/48` : client;
}

/** One key per IPv4 address and per IPv6 /64, which one subscriber usually holds whole. */
function addressKey(entry: string): string {
  // Some proxies add a port: "203.0.113.7:4711", "[2001:db8::1]:4711".
  const address = (entry.match(/^\[([^\]]+)\](?::\d+)?$/)?.[1] ?? entry.replace(/^([\d.]+):\d+$/, "$1"))
    .replace(/%.*$/, "") // IPv6 zone id
    .toLowerCase();
  const mapped = address.match(/^::ffff:([\d.]+)$/)?.[1];
  if (mapped && isIPv4(mapped)) return mapped;
  if (!isIPv6(address)) return address.slice(0, 64); // bounded: a hostile header cannot grow the limiter
  const [head = "", tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = address.includes("::") ? (tail ? tail.split(":") : []) : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

// ---- The limits ----
// In Redis when it is set, with an in-memory insurance limiter while it is away (decision 011).
export const REDIS_KEY_PREFIX = "portfolio:";

export function createRateLimiter(
  { max, windowSeconds }: AppConfig["rateLimit"],
  redis: RedisLink | null,
  name: string,
): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ points: max, duration: windowSeconds });
  if (!redis) return memory;
  return new RateLimiterRedis({
    storeClient: redis.client,
    keyPrefix: REDIS_KEY_PREFIX + name,
    points: max,
    duration: windowSeconds,
    // Not ready: go to the insurance limiter at once instead of trying Redis.
    rejectIfRedisNotReady: true,
    insuranceLimiter: memory,
  });
}
