// During a provider outage one client once filled the kept messages (every failure
// gave its quota back) and genuine messages were then lost (decision 024).
// Two relaying replicas behind deploy/Caddyfile on one PostgreSQL database,
// the EmailJS fake answering 500.
import { request as httpsRequest } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Caddy } from "../support/caddy";
import { BROWSER_HEADERS, VALID, formBody, relayEnv } from "../support/contact";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { runOutboxCli } from "../support/outbox-cli";
import { freshDatabase } from "../support/postgres-server";
import { startProxiedReplicas, tempOutbox } from "../support/topology";

describe("a provider outage and a flood from one client", () => {
  let provider: EmailJsFake;
  let proxy: Caddy;
  let stopProxied: () => Promise<void>;
  let env: Record<string, string>;

  beforeAll(async () => {
    provider = await startEmailJsFake();
    provider.setMode({ kind: "status", status: 500 });
    env = relayEnv(provider.url, {
      TRUST_PROXY: "1",
      DATABASE_URL: await freshDatabase(),
      // A relay on PostgreSQL writes nothing there.
      OUTBOX_DIR: tempOutbox("outage"),
    });
    ({ caddy: proxy, stop: stopProxied } = await startProxiedReplicas(env));
  }, 120_000);

  afterAll(async () => {
    await stopProxied?.();
    await provider?.close();
  });

  /** A no-JS post through Caddy from the loopback address `from` (Caddy names it in X-Forwarded-For). */
  const postFrom = (from: string, subject: string) =>
    new Promise<number>((resolve, reject) => {
      const body = formBody({ ...VALID, subject }).toString();
      const request = httpsRequest(
        {
          host: "127.0.0.1",
          port: proxy.httpsPort,
          servername: "localhost",
          ca: proxy.rootCa,
          localAddress: from,
          path: "/?index",
          method: "POST",
          agent: false,
          headers: {
            ...BROWSER_HEADERS,
            Host: `localhost:${proxy.httpsPort}`,
            Origin: `https://localhost:${proxy.httpsPort}`,
            "Content-Type": "application/x-www-form-urlencoded",
          },
        },
        (response) => {
          response.resume();
          response.on("end", () => resolve(response.statusCode!));
        },
      );
      request.on("error", reject);
      request.end(body);
    });

  /** What the store keeps waiting, as the owner's CLI counts it. */
  const files = async () =>
    Number(/(\d+) undelivered message\(s\)/.exec((await runOutboxCli(["list"], env)).stdout)?.[1]);

  it("the flood leaves a few messages and meets the limit; every genuine message is kept", async () => {
    const statuses: Record<number, number> = {};
    let posts = 0;
    // One client, distinct valid messages, 4 at a time: 24, well past its limit of 5.
    await Promise.all(
      Array.from({ length: 4 }, async (_, lane) => {
        for (let i = 0; i < 6; i++) {
          const status = await postFrom("127.0.0.1", `flood ${lane}-${posts++}`);
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      }),
    );
    const flooded = await files();
    const genuine = await Promise.all(
      // Each from a network of its own: a network's mailed share is its own test (contact-bots.test.ts).
      [2, 3, 4, 5, 6].map((net) => postFrom(`127.0.${net}.1`, `genuine from ${net}`)),
    );
    console.log(
      `outage flood: ${posts} posts from one client, ${flooded} kept, statuses ${JSON.stringify(statuses)}; genuine: ${(await files()) - flooded} of 5 kept, statuses ${genuine.join(",")}`,
    );
    expect(flooded).toBeLessThanOrEqual(3);
    expect(statuses[429]).toBeGreaterThan(0);
    expect(genuine).toEqual([502, 502, 502, 502, 502]);
    expect((await files()) - flooded).toBe(5);
  }, 60_000);
});
