// What a message must pass before it is sent: the mail library's refusals, the honeypot, the limits.
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

type GuardRefusal =
  | { status: 403; reason: "blocklisted" }
  | { status: 429; reason: "rate_limited"; retryAfterSeconds: number }
  | { status: 451; reason: "headless_browser" };

export const HEADLESS_UA = /headless|phantomjs|puppeteer|playwright|selenium|webdriver/i;

/** Like @emailjs/browser's blockHeadless: an automation User-Agent, or no User-Agent or Accept-Language. */
function looksHeadless(request: Request): boolean {
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
  refund(client: string): Promise<void>;
  mayKeep(client: string): Promise<KeepAllowance>;
  mayKeepSpam(client: string): Promise<KeepAllowance>;
  /** A network (an IPv4 /24, an IPv6 /48) may have a few messages mailed a day; the rest wait for the owner. */
  mayMailFrom(client: string): Promise<boolean>;
  /** Counts a refused post; past the allowance, seconds until the next is answered in full, else 0. */
  refused(client: string): Promise<number>;
};

const DAY = 24 * 60 * 60;
export const KEPT_PER_CLIENT = { max: 3, windowSeconds: DAY };
const KEPT_PER_NETWORK = { max: 10, windowSeconds: DAY };
const SPAM_PER_CLIENT = { max: 5, windowSeconds: DAY };
const REFUSALS_PER_CLIENT = { max: 30, windowSeconds: 600 };
export const MAILED_PER_NETWORK = { max: 10, windowSeconds: DAY };

async function consume(
  limit: RateLimiterAbstract,
  key: string,
): Promise<{ used: number } | { retryAfterMs: number }> {
  try {
    return { used: (await limit.consume(key)).consumedPoints };
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return { retryAfterMs: rejection.msBeforeNext };
  }
}

export function createGuards(config: AppConfig, redis: RedisLink | null): Guards {
  const limiter = createRateLimiter(config.rateLimit, redis, "contact");
  const allowance = (limits: AppConfig["rateLimit"], name: string) => {
    const limit = createRateLimiter(limits, redis, name);
    return (key: string) => consume(limit, key);
  };
  const keptByClient = allowance(KEPT_PER_CLIENT, "contact-kept");
  const keptByNetwork = allowance(KEPT_PER_NETWORK, "contact-kept-network");
  const spamByClient = allowance(SPAM_PER_CLIENT, "contact-spam");
  const spamByNetwork = allowance(KEPT_PER_NETWORK, "contact-spam-network");
  const refusals = allowance(REFUSALS_PER_CLIENT, "contact-refused");
  const mailedByNetwork = allowance(MAILED_PER_NETWORK, "contact-mailed-network");

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
    const left = await consume(limiter, client);
    if ("used" in left) return null;
    return { status: 429, reason: "rate_limited", retryAfterSeconds: Math.ceil(left.retryAfterMs / 1000) };
  };

  return {
    check,
    refund: async (client) => void (await limiter.reward(client)),
    mayKeep: keep(keptByClient, keptByNetwork),
    mayKeepSpam: keep(spamByClient, spamByNetwork),
    mayMailFrom: async (client) => "used" in (await mailedByNetwork(networkKey(client))),
    refused: async (client) => {
      const left = await refusals(client);
      return "used" in left ? 0 : Math.ceil(left.retryAfterMs / 1000);
    },
  };
}

export function isBlocked(blocklist: Blocklist, email: string): boolean {
  const { local, domain } = canonicalAddress(email);
  if (blocklist.addresses.has(`${local}@${domain}`)) return true;
  const labels = domain.split(".");
  return labels.some((_, i) => blocklist.domains.has(labels.slice(i).join(".")));
}

// The server resolves the address (req.ip, decision 034); this keys it.
export const UNKNOWN_CLIENT_KEY = "unknown";

export function clientKey(clientAddress: string | undefined): string {
  return clientAddress ? addressKey(clientAddress) : UNKNOWN_CLIENT_KEY;
}

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

// In Redis when it is set, with an in-memory insurance limiter while it is away (decision 011).
const REDIS_KEY_PREFIX = "portfolio:";

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
    rejectIfRedisNotReady: true,
    insuranceLimiter: memory,
  });
}
