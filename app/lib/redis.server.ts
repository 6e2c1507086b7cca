// The process's one Redis connection and its state: the contact limits, proofs, same-text counts and the
// provider's pace share it, and /healthz reports it (decision 011).
import Redis from "ioredis";

type RedisState = "up" | "down" | "slow" | "failing";

const PROBE_DEADLINE_MS = 250;
const PROBE_KEY = "portfolio:health";
const PROBE_REUSE_MS = 1_000;
const RISKS_REUSE_MS = 60_000;

export type RedisLink = {
  client: Redis;
  state(): RedisState;
  /** What would lose a kept message: keys evicted under memory pressure, or no data on disk; [] when none. */
  risks(): Promise<string[]>;
  /** Asks Redis with a write, not a ping (a ping answers while writes fail). */
  probe(): Promise<RedisState>;
  close(): void;
};

type RedisLogger = Pick<Console, "info" | "warn">;

const RECONNECT_DELAY_MS = (attempt: number) => Math.min(attempt * 100, 1_000);

export function connectRedis(url: string, logger: RedisLogger = console): RedisLink {
  const client = new Redis(url, {
    // The insurance limiter needs commands to fail while the connection is down, not wait in a queue.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    retryStrategy: RECONNECT_DELAY_MS,
  });

  let announcedDown = false;
  let closing = false;
  const wentAway = () => {
    if (announcedDown || closing) return;
    announcedDown = true;
    logger.warn("[rate-limit] Redis unreachable: using the in-memory limit until it is back");
  };
  // Without an error listener ioredis prints every failed reconnect.
  client.on("error", wentAway);
  client.on("close", wentAway);
  client.on("ready", () => {
    if (announcedDown) logger.info("[rate-limit] Redis is back: the contact limit is shared again");
    else logger.info("[rate-limit] Redis connected: the contact limit is shared by every replica");
    announcedDown = false;
  });

  let probed: RedisState = "up";
  // A flood of /healthz makes one Redis write a second, not one each.
  let last: { at: number; state: Promise<RedisState> } | null = null;
  const probe = (): Promise<RedisState> => {
    // Not connected: nothing is written, so nothing to spare, and the first answer after it is fresh.
    if (client.status !== "ready") last = null;
    if (last && Date.now() - last.at < PROBE_REUSE_MS) return last.state;
    last = { at: Date.now(), state: probeNow() };
    return last.state;
  };
  const probeNow = async (): Promise<RedisState> => {
    let state: RedisState = "down";
    if (client.status === "ready") {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<RedisState>((resolve) => {
        timer = setTimeout(() => resolve("slow"), PROBE_DEADLINE_MS);
      });
      const answer = client.set(PROBE_KEY, Date.now(), "PX", 10_000).then(
        () => "up" as const,
        () => "failing" as const,
      );
      state = await Promise.race([answer, late]);
      clearTimeout(timer);
    }
    if (state !== probed && (state === "slow" || state === "failing")) {
      logger.warn(
        `[rate-limit] Redis is ${state === "slow" ? "slow to answer" : "refusing writes"}: the contact limit may fall back to memory`,
      );
    } else if (state === "up" && (probed === "slow" || probed === "failing")) {
      logger.info("[rate-limit] Redis answers writes again");
    }
    probed = state;
    return state;
  };

  let risks: { at: number; found: Promise<string[]> } | null = null;
  const readRisks = async () => {
    const info = await client.info();
    const field = (name: string) => new RegExp(`^${name}:(.*)$`, "m").exec(info)?.[1]?.trim();
    const found: string[] = [];
    const policy = field("maxmemory_policy");
    if (policy && policy !== "noeviction") found.push(`evicts keys (maxmemory-policy ${policy})`);
    // CONFIG may be renamed away on a managed Redis: then nothing is claimed.
    const save = await (client.config("GET", "save") as Promise<string[]>).catch(() => null);
    if (field("aof_enabled") === "0" && save?.[1] === "")
      found.push("keeps no data on disk (no appendonly, no save)");
    return found;
  };

  return {
    client,
    probe,
    async risks() {
      // A new connection (the owner's CLI) gets a second to come up; a Redis that is away claims nothing.
      if (client.status !== "ready") {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, 1_000);
          client.once("ready", () => resolve(clearTimeout(timer)));
        });
      }
      if (client.status !== "ready") return [];
      if (!risks || Date.now() - risks.at > RISKS_REUSE_MS) {
        risks = { at: Date.now(), found: readRisks().catch(() => []) };
      }
      return risks.found;
    },
    state: () => (client.status === "ready" ? "up" : "down"),
    close: () => {
      closing = true;
      client.disconnect(false);
    },
  };
}

const links = new Map<string, RedisLink>();

export function sharedRedis(url: string): RedisLink {
  let link = links.get(url);
  if (!link) {
    link = connectRedis(url);
    // Never closed: posts in flight at shutdown keep the shared limit until server/shutdown.ts exits.
    links.set(url, link);
  }
  return link;
}
