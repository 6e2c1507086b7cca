// Two replicas sharing one outbox folder (the SQLite store): a solved proof counts once across both and
// after a restart, and the send budget is one for the site (decision 045).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";
import { BROWSER_HEADERS, VALID, relayEnv, postForm } from "../support/contact";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { fetchProof, notBefore } from "../support/proof";

let fake: EmailJsFake;
let outbox: string;
let replicas: AppServer[] = [];

const env = (extra: Record<string, string> = {}) =>
  relayEnv(fake.url, {
    OUTBOX_DIR: outbox,
    TRUST_PROXY: "1",
    SESSION_SECRET: "a-shared-secret-of-at-least-32-characters",
    ...extra,
  });

beforeEach(async () => {
  fake = await startEmailJsFake();
  outbox = await mkdtemp(path.join(tmpdir(), "shared-file-"));
});
afterEach(async () => {
  await Promise.all(replicas.map((replica) => replica.stop()));
  await fake.close();
  await rm(outbox, { recursive: true, force: true });
});

const startTwo = async (extra: Record<string, string> = {}) => {
  replicas = await Promise.all([startAppServer({ env: env(extra) }), startAppServer({ env: env(extra) })]);
};

function post(replica: AppServer, client: string, values: Record<string, string>) {
  return postForm(`${replica.url}/?index`, values, {
    ...BROWSER_HEADERS,
    Origin: replica.url,
    "X-Forwarded-For": client,
  }).then((response) => response.status);
}

it(
  "one solved proof mails one message, on either replica and after a restart",
  { timeout: 60_000 },
  async () => {
    await startTwo({ CONTACT_BOT_CHECKS: "on", CONTACT_PROOF_MIN_SECONDS: "1" });
    const client = "203.0.113.77";
    const proof = await fetchProof(replicas[0]!.url, { "X-Forwarded-For": client });
    await notBefore(proof.issuedAt, 1);
    const values = (subject: string) => ({ ...VALID, subject, altcha: proof.payload });
    expect(await post(replicas[0]!, client, values("Replayed 1"))).toBe(303);
    // The same proof again: asked to confirm (200), not mailed.
    expect(await post(replicas[1]!, client, values("Replayed 2"))).toBe(200);
    await Promise.all(replicas.map((replica) => replica.stop()));
    await startTwo({ CONTACT_BOT_CHECKS: "on", CONTACT_PROOF_MIN_SECONDS: "1" });
    expect(await post(replicas[1]!, client, values("Replayed 3"))).toBe(200);
    expect(
      fake.requests.map(
        (request) => (request.body as { template_params: { subject: string } }).template_params.subject,
      ),
    ).toEqual(["Replayed 1"]);
  },
);

it("the daily budget is one for both replicas", { timeout: 60_000 }, async () => {
  await startTwo({ CONTACT_DAILY_SEND_LIMIT: "3" });
  for (let i = 0; i < 6; i++) {
    expect(await post(replicas[i % 2]!, `198.51.100.${i + 1}`, { ...VALID, subject: `Budget ${i}` })).toBe(
      303,
    );
  }
  expect(fake.requests).toHaveLength(3);
});
