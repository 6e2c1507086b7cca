// `npm run outbox -- list|resend` for real: the bundled build/outbox.js run as
// its own process with the server's environment, against the fake provider,
// on the real SQLite file in OUTBOX_DIR. Needs `npm run build` first.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { beforeAll, expect, it, vi } from "vitest";
import { messageId } from "~/contact/rules/message.server";
import { useFakeAndOutbox } from "../support/fake-and-outbox";
import { CLI, runOutboxCli } from "../support/outbox-cli";
import { OWNER, VALID, expectFailure, formRequest, relayEnv, setupAction } from "../support/contact";
import { keep, keptIn } from "../support/store";

const PRIVATE_KEY = "private_cli_KEY_111";

const scratch = useFakeAndOutbox("outbox-cli-test-");
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error("No build/outbox.js: run `npm run build` first.");
});

const env = () =>
  relayEnv(scratch.fake.url, { OUTBOX_DIR: scratch.outbox, EMAILJS_PRIVATE_KEY: PRIVATE_KEY });

const cli = (args: string[], childEnv: Record<string, string> = env()) => runOutboxCli(args, childEnv);

/** Where the CLI says the messages are kept. */
const store = () => path.join(scratch.outbox, "outbox.sqlite");

const MESSAGES = [
  { ...VALID, subject: "First" },
  { ...VALID, subject: "Second", email: "grace@example.org", name: "Grace Hopper" },
  { ...VALID, subject: "Third" },
];

/** Three messages the provider failed on, kept by the form's own action. */
async function leaveUndelivered() {
  scratch.fake.setMode({ kind: "status", status: 500 });
  // A 429 surely did not deliver it (a 4xx would hold it for the owner as refused for itself).
  scratch.fake.setMode({ kind: "status", status: 429, body: "Too many requests" }, "Third");
  const { run } = await setupAction(env());
  for (const message of MESSAGES) expectFailure(await run(formRequest(message)));
  scratch.fake.reset();
  expect(await keptIn(scratch.outbox)).toHaveLength(3);
}

it("list shows each undelivered message's time, sender, subject and reason, never its text", async () => {
  await leaveUndelivered();
  const { code, stdout, stderr } = await cli(["list"]);
  expect(code).toBe(0);
  // The server's start-up notes (TRUST_PROXY, SESSION_SECRET unset here) are not the owner's business.
  expect(stderr).toBe("");
  const lines = stdout.trim().split("\n");
  expect(lines).toHaveLength(4);
  const entries = lines.slice(0, 3);
  const line = (subject: string) => entries.find((entry) => entry.includes(`"${subject}"`));
  expect(line("First")).toMatch(
    /^\d{4}-\d\d-\d\dT[\d:.]+Z {2}Ada Lovelace <ada@example\.com> {2}"First" {2}\(waiting: uncertain, uncertain: may have been delivered, EmailJS said "Fake status 500", next attempt \d{4}-[\d-]+T[\d:.]+Z, 1 attempt\(s\)\) {2}[0-9a-f]{32}$/,
  );
  expect(line("Second")).toContain(
    `Grace Hopper <grace@example.org>  "Second"  (waiting: uncertain, uncertain: may`,
  );
  expect(line("Third")).toContain(
    `"Third"  (waiting: provider, EmailJS said "Too many requests", next attempt `,
  );
  // Oldest first.
  const times = entries.map((entry) => entry.split(" ")[0]!);
  expect(times).toEqual([...times].sort());
  expect(lines[3]).toBe(`3 undelivered message(s) in ${store()}`);
  expect(stdout).not.toContain(VALID.message);
  expect(scratch.fake.requests).toHaveLength(0);
});

// Marks, zero-width characters and controls in a kept name or subject once reached the owner's terminal raw.
it("list and spam list print a kept message's hidden and control characters as escapes, none raw", async () => {
  const hidden = "\u200f\u061c\u200b\u2060";
  const params = (message: string) => ({
    name: `Ada${hidden}\u001b[2J Lovelace`,
    from_email: "ada\u200b@example.com",
    subject: `Invoice\u009b31m ${hidden}paid`,
    message,
    to_name: OWNER,
  });
  const signals = ["link_in_name\u200e"];
  // One waiting after a failure, the provider's words hiding characters too; one held as spam.
  const waiting = params("Never shown (waiting)");
  const spam = params("Never shown (spam)");
  const ids = {
    list: await keep(scratch.outbox, waiting.subject, {
      params: waiting,
      id: messageId(waiting),
      signals,
      providerText: `Bad\u0007 gateway${hidden}`,
    }),
    "spam list": await keep(scratch.outbox, spam.subject, {
      spam: true,
      params: spam,
      id: messageId(spam),
      signals,
    }),
  };
  const escaped = "\\u{200F}\\u{61C}\\u{200B}\\u{2060}";
  const printed: string[] = [];
  for (const args of [["list"], ["spam", "list"]]) {
    const { code, stdout } = await cli(args);
    printed.push(stdout);
    expect(code, args.join(" ")).toBe(0);
    const [line, total] = stdout.split("\n");
    expect(line).toContain(
      `Ada${escaped}\\u{1B}[2J Lovelace <ada\\u{200B}@example.com>  "Invoice\\u{9B}31m ${escaped}paid"  (`,
    );
    expect(line).toContain(": link_in_name\\u{200E}");
    expect(line).toMatch(new RegExp(`\\) {2}${ids[args.join(" ") as keyof typeof ids]}$`));
    expect(total).toMatch(/^1 (undelivered|suspected spam) message\(s\) in /);
    expect(stdout).not.toContain("Never shown");
    expect(stdout.replaceAll("\n", "")).not.toMatch(/[\p{Cc}\p{Cf}]/u);
  }
  expect(printed[0]).toContain(`EmailJS said "Bad\\u{7} gateway${escaped}"`);
});

it("resend while the provider still fails keeps every message, then with it back delivers each once and empties the store", async () => {
  await leaveUndelivered();
  const ids = (await keptIn(scratch.outbox)).map((message) => message.id).sort();

  scratch.fake.setMode({ kind: "status", status: 503 });
  const failing = await cli(["resend"]);
  expect(failing.code).toBe(1);
  expect(failing.stdout).toMatch(/0 sent, 3 still undelivered/);
  expect((await keptIn(scratch.outbox)).map((message) => message.id).sort()).toEqual(ids);
  // A 503 without Retry-After is final: one request per message.
  expect(scratch.fake.requests).toHaveLength(3);

  scratch.fake.reset();
  const back = await cli(["resend"]);
  expect(back.code).toBe(0);
  expect(back.stdout).toMatch(/3 sent, 0 still undelivered/);
  expect(await keptIn(scratch.outbox)).toEqual([]);
  // Exactly the relay's body, ids and key included, once per message.
  const bySubject = (body: unknown) =>
    (body as { template_params: { subject: string } }).template_params.subject;
  const sent = scratch.fake.requests.map((request) => request.body);
  expect(sent.sort((a, b) => bySubject(a).localeCompare(bySubject(b)))).toEqual(
    MESSAGES.map((message) => ({
      lib_version: "4.4.1",
      user_id: "pk_test_PUBLIC_123",
      service_id: "service_test_456",
      template_id: "template_test_789",
      template_params: {
        name: message.name,
        from_email: message.email,
        subject: message.subject,
        message: message.message,
        to_name: OWNER,
      },
      accessToken: PRIVATE_KEY,
    })),
  );

  const again = await cli(["resend"]);
  expect(again.code).toBe(0);
  expect(again.stdout).toMatch(/0 sent, 0 still undelivered/);
  expect(scratch.fake.requests).toHaveLength(3);
});

it("resend without EmailJS ids refuses with a clear message; a wrong command shows the usage", async () => {
  const outboxMode = await cli(["resend"], { OUTBOX_DIR: scratch.outbox });
  expect(outboxMode.code).toBe(2);
  expect(outboxMode.stderr).toContain("resend needs the EmailJS ids");

  const wrong = await cli(["send-all"]);
  expect(wrong.code).toBe(2);
  expect(wrong.stderr).toContain("usage: npm run outbox -- status | test | list | resend");
});

it("a bad environment is one clear line, not a stack trace", async () => {
  const { code, stderr } = await cli(["list"], { ...env(), PORT: "not-a-port" });
  expect(code).toBe(1);
  expect(stderr.trim()).toBe("ConfigError: Invalid environment: PORT must be a whole number");
});

/** `count` distinct messages left undelivered by the action, the provider answering 500. */
async function leaveMany(count: number) {
  scratch.fake.setMode({ kind: "status", status: 500 });
  const { run } = await setupAction({ ...env(), CONTACT_RATE_LIMIT_MAX: "1000" });
  for (let i = 0; i < count; i++) {
    // Each from its own network: one client, and one network, may only leave a few (decision 024).
    const client = { "X-Forwarded-For": `203.0.${i + 1}.1` };
    const values = { ...VALID, subject: `Many ${i}`, message: `${VALID.message} (${i})` };
    expectFailure(await run(formRequest(values, client)));
  }
  scratch.fake.reset();
}

// A resend once sent from the list it read at its start: visitors re-posting waiting messages meanwhile
// were delivered twice each.
it("visitors re-posting their waiting messages while a resend runs: each message is delivered once", async () => {
  await leaveMany(20);
  scratch.fake.setMode({ kind: "status", status: 200, delayMs: 300 });
  const { run } = await setupAction({ ...env(), CONTACT_RATE_LIMIT_MAX: "1000" });
  const reposts = Array.from({ length: 20 }, (_, i) =>
    run(
      formRequest(
        { ...VALID, subject: `Many ${i}`, message: `${VALID.message} (${i})` },
        { "X-Forwarded-For": `203.0.${i + 1}.1` },
      ),
    ),
  );
  const resend = cli(["resend"]);
  await Promise.all(reposts);
  expect((await resend).stdout).toMatch(/20 sent, 0 still undelivered/);
  const subjects = scratch.fake.requests.map(
    (request) => (request.body as { template_params: { subject: string } }).template_params.subject,
  );
  expect(subjects).toHaveLength(20);
  expect(new Set(subjects).size).toBe(20);
}, 30_000);

// A resend killed mid-send once left the message as if never sent: the next run sent it again unmarked.
it("a resend killed while sending leaves the message marked as maybe delivered", async () => {
  scratch.fake.setMode({ kind: "status", status: 429, body: "Too many requests" });
  expectFailure(await (await setupAction(env())).run(formRequest({ ...VALID, subject: "In flight" })));
  expect((await cli(["list"])).stdout).not.toContain("uncertain");
  scratch.fake.setMode({ kind: "hang" });
  const child = spawn(process.execPath, [CLI, "resend"], {
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...env() },
    stdio: "ignore",
  });
  await vi.waitFor(() => expect(scratch.fake.requests).toHaveLength(2), { timeout: 10_000 });
  child.kill("SIGKILL");
  await new Promise((resolve) => child.once("exit", resolve));
  const listed = (await cli(["list"])).stdout;
  expect(listed, listed).toMatch(/"In flight".*uncertain: may have been delivered/);
});

// Two resends at once once sent each message twice.
it("two resends at once send each message once", async () => {
  await leaveMany(20);
  expect(await keptIn(scratch.outbox)).toHaveLength(20);
  scratch.fake.setMode({ kind: "status", status: 200, delayMs: 50 });
  const runs = await Promise.all([cli(["resend"]), cli(["resend"])]);
  expect(scratch.fake.requests).toHaveLength(20);
  const subjects = scratch.fake.requests.map(
    (request) => (request.body as { template_params: { subject: string } }).template_params.subject,
  );
  expect(new Set(subjects).size).toBe(20);
  // They may share the work (each message is taken by one of them); together they sent each message once.
  const sent = runs.map((run) => Number(/^(\d+) sent, \d+ still undelivered/m.exec(run.stdout)?.[1]));
  expect(sent[0]! + sent[1]!, runs.map((run) => run.stdout + run.stderr).join("\n")).toBe(20);
  expect(runs.map((run) => run.stderr)).toEqual(["", ""]);
  // Neither calls undelivered what the other sent.
  expect(runs.map((run) => run.code)).toEqual([0, 0]);
  expect(runs.map((run) => /(\d+) still undelivered/.exec(run.stdout)?.[1])).toEqual(["0", "0"]);
  expect(await keptIn(scratch.outbox)).toEqual([]);
});
