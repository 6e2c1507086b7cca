// The provider's answer against the production server: a
// 200 with a huge body is a success in normal time, and the server reads only
// the start of it, so its memory stays where it was.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { startAppServer, type AppServer } from "../support/app-server";
import { VALID, relayEnv, postForm } from "../support/contact";

let fake: EmailJsFake;
let app: AppServer;
beforeAll(async () => {
  fake = await startEmailJsFake();
  app = await startAppServer({ env: relayEnv(fake.url) });
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await fake?.close();
});

/** The server process's resident memory, in MB. */
const rssMb = () =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${app.child.pid}/status`, "utf8"))![1]) / 1024;

it("a 200 with a 200 MB body: the visitor gets the success in normal time, the server's memory stays put", async () => {
  const before = rssMb();
  fake.setMode({ kind: "streamed", status: 200, bytes: 200 * 1024 * 1024, overMs: 0 });
  const started = performance.now();
  const answer = await postForm(`${app.url}/?index`, VALID);
  const tookMs = performance.now() - started;
  const grewMb = rssMb() - before;
  console.log(
    `a 200 with a 200 MB body: answered ${answer.status} in ${tookMs.toFixed(0)} ms, server RSS +${grewMb.toFixed(0)} MB`,
  );
  expect(answer.status).toBe(303);
  expect(tookMs).toBeLessThan(3_000);
  expect(grewMb).toBeLessThan(50);
}, 30_000);
