// The refusals the original mail library had (403 block list, 429 throttle,
// 451 headless browser), applied on the server where a bot cannot skip them,
// plus the honeypot that spares the owner from naive spam bots.
import { RateLimiterRes } from "rate-limiter-flexible";
import type { AppConfig } from "~/config.server";
import { isBlocked } from "./blocklist.server";
import { sharedRedis } from "~/lib/redis.server";
import { clientKey } from "./client-ip.server";
import { HONEYPOT_FIELD } from "./contract";
import { createRateLimiter } from "./rate-limit.server";
import type { ContactMessage } from "./schema";

export type GuardRefusal =
  | { status: 403; reason: "blocklisted" }
  | { status: 429; reason: "rate_limited"; retryAfterSeconds: number }
  | { status: 451; reason: "headless_browser" };

// Markers automation tools leave in the User-Agent.
const HEADLESS_UA = /headless|phantomjs|puppeteer|playwright|selenium|webdriver/i;

/**
 * The server's view of @emailjs/browser's blockHeadless (navigator.webdriver or
 * no languages): an automation User-Agent, or no User-Agent or
 * Accept-Language at all, which every real browser sends.
 */
export function looksHeadless(request: Request): boolean {
  const userAgent = request.headers.get("user-agent") ?? "";
  const languages = request.headers.get("accept-language") ?? "";
  return userAgent.trim() === "" || languages.trim() === "" || HEADLESS_UA.test(userAgent);
}

/** True when a bot filled the field that people never see. */
export function honeypotFilled(form: FormData): boolean {
  return form.getAll(HONEYPOT_FIELD).some((value) => typeof value !== "string" || value.trim() !== "");
}

export type Guards = {
  /** The first refusal that applies, or null; an allowed message uses one unit of its client's quota. */
  check(request: Request, message: ContactMessage): Promise<GuardRefusal | null>;
  /** Gives the unit back: a failure that was not the visitor's doing must not use up their quota. */
  refund(request: Request): Promise<void>;
  /** Whether one more undelivered message of this client may be kept; uses one unit of that allowance. */
  mayKeep(request: Request): Promise<boolean>;
};

/** What one client may leave in the undelivered folder in a day (decision 024). */
export const KEPT_PER_CLIENT = { max: 3, windowSeconds: 24 * 60 * 60 };

export function createGuards(config: AppConfig): Guards {
  const redis = config.redisUrl ? sharedRedis(config.redisUrl) : null;
  const limiter = createRateLimiter(config.rateLimit, redis, "contact");
  const keptLimiter = createRateLimiter(KEPT_PER_CLIENT, redis, "contact-kept");

  const check: Guards["check"] = async (request, message) => {
    if (isBlocked(config.blocklist, message.email)) {
      return { status: 403, reason: "blocklisted" };
    }
    if (config.blockHeadless && looksHeadless(request)) {
      return { status: 451, reason: "headless_browser" };
    }
    // Last, so refused senders do not use up a real client's allowance.
    try {
      await limiter.consume(clientKey(request, config.trustProxyHops));
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

  const refund: Guards["refund"] = async (request) => {
    await limiter.reward(clientKey(request, config.trustProxyHops));
  };

  const mayKeep: Guards["mayKeep"] = async (request) => {
    try {
      await keptLimiter.consume(clientKey(request, config.trustProxyHops));
      return true;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return false;
    }
  };

  return { check, refund, mayKeep };
}
