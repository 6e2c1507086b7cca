// Caddy's passive health checks once counted an error reading the visitor's
// own body as the replica's failure, so two malformed requests marked both
// replicas down and every visitor then waited 5 s for a 503 (decision 023).
// Two replicas behind deploy/Caddyfile, and three kinds of bad request.
import { connect as http2Connect } from "node:http2";
import { request as httpsRequest } from "node:https";
import { connect as tlsConnect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Caddy } from "../support/caddy";
import { BROWSER_HEADERS } from "../support/contact";
import { siteOrigin, startProxiedReplicas, tempOutbox } from "../support/topology";

let caddy: Caddy;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ caddy, stop } = await startProxiedReplicas({
    TRUST_PROXY: "1",
    OUTBOX_DIR: tempOutbox("bad-requests"),
  }));
}, 120_000);

afterAll(async () => {
  await stop?.();
});

describe("a visitor's bad request never marks a healthy replica down", () => {
  const tlsOptions = () => ({
    host: "127.0.0.1",
    port: caddy.httpsPort,
    servername: "localhost",
    ca: caddy.rootCa,
  });

  /**
   * Runs one bad request until its connection closes. What Caddy answers does
   * not matter here, only what visitors get meanwhile: after 10 s the
   * connection is dropped, so a request Caddy leaves open cannot hang the test.
   */
  let cutShort = 0;
  const sendBad = (open: () => { close: () => void; closed: Promise<unknown> }) =>
    new Promise<void>((resolve) => {
      const connection = open();
      const timer = setTimeout(() => {
        cutShort += 1;
        connection.close();
      }, 10_000);
      void connection.closed.finally(() => {
        clearTimeout(timer);
        resolve();
      });
    });

  const closedOrFailed = (emitter: NodeJS.EventEmitter) =>
    new Promise((resolve) => {
      emitter.once("close", resolve);
      emitter.on("error", () => undefined);
    });

  /** A chunked POST whose first chunk size is not hex, written raw over TLS. */
  const badChunk = () =>
    sendBad(() => {
      const socket = tlsConnect({ ...tlsOptions(), ALPNProtocols: ["http/1.1"] }, () =>
        socket.write("POST / HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n"),
      );
      socket.on("data", () => socket.end());
      return { close: () => socket.destroy(), closed: closedOrFailed(socket) };
    });

  /** An HTTP/2 POST whose body ends before its content-length. */
  const shortH2Body = () =>
    sendBad(() => {
      const session = http2Connect(`https://localhost:${caddy.httpsPort}`, {
        ...tlsOptions(),
        createConnection: () => tlsConnect({ ...tlsOptions(), ALPNProtocols: ["h2"] }),
      });
      session.on("error", () => undefined);
      const stream = session.request({
        ":method": "POST",
        ":path": "/?index",
        "content-type": "application/x-www-form-urlencoded",
        "content-length": "1000",
      });
      stream.on("error", () => undefined);
      stream.on("close", () => session.close());
      stream.resume();
      stream.end("name=short");
      return { close: () => session.destroy(), closed: closedOrFailed(session) };
    });

  /** A chunked post of 1.1 MiB, which the app cuts off at its body limit. */
  const hugeChunked = () =>
    sendBad(() => {
      const request = httpsRequest(
        {
          ...tlsOptions(),
          path: "/?index",
          method: "POST",
          agent: false,
          headers: {
            Host: `localhost:${caddy.httpsPort}`,
            Origin: siteOrigin(caddy),
            "Content-Type": "application/x-www-form-urlencoded",
            "Transfer-Encoding": "chunked",
          },
        },
        (response) => response.resume(),
      );
      const chunk = Buffer.alloc(64 * 1024, "a");
      for (let i = 0; i < 18; i++) request.write(chunk);
      request.end();
      return { close: () => request.destroy(), closed: closedOrFailed(request) };
    });

  it("visitors keep getting the page in normal time while the three kinds keep coming", async () => {
    const waits: number[] = [];
    const failed: number[] = [];
    for (let round = 0; round < 8; round++) {
      await Promise.all([badChunk(), badChunk(), shortH2Body(), hugeChunked()]);
      for (let visitor = 0; visitor < 4; visitor++) {
        const start = performance.now();
        const answer = await caddy.request("/", { headers: BROWSER_HEADERS });
        waits.push(performance.now() - start);
        if (answer.status !== 200) failed.push(answer.status);
      }
    }
    waits.sort((a, b) => a - b);
    const median = waits[Math.floor(waits.length / 2)]!;
    console.log(
      `bad requests through Caddy: ${failed.length} of ${waits.length} visitor GETs failed, median ${median.toFixed(0)} ms, slowest ${waits.at(-1)!.toFixed(0)} ms; ${cutShort} bad request(s) left open by Caddy for 10 s`,
    );
    expect(failed).toEqual([]);
    // A replica marked down makes a visitor wait lb_try_duration (5 s): far above any normal answer.
    expect(waits.at(-1)!).toBeLessThan(2_000);
  }, 120_000);
});
