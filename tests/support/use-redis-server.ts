// A redis-server for one test file with vitest's hooks; redis-server.ts starts one in plain Node (the bench too).
import { afterAll, afterEach, beforeAll } from "vitest";
import { connectRedis, type RedisLink } from "~/lib/redis.server";
import { startRedisServer, type RedisServer } from "./redis-server";

/**
 * A redis-server for this test file, started before its tests and stopped after them, and
 * connections to it opened as the app opens them (connectRedis), each closed after its test.
 */
export function useRedisServer() {
  let server: RedisServer | undefined;
  const opened: RedisLink[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
  }, 30_000);
  afterEach(() => {
    for (const link of opened.splice(0)) link.close();
  });
  afterAll(async () => {
    await server?.stop();
  });
  const running = () => {
    if (!server) throw new Error("redis-server is not started yet");
    return server;
  };
  return {
    get url() {
      return running().url;
    },
    stop: () => running().stop(),
    start: () => running().start(),
    connect(logger: Parameters<typeof connectRedis>[1], url = running().url) {
      const link = connectRedis(url, logger);
      opened.push(link);
      return link;
    },
  };
}
