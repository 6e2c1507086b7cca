// With no EmailJS ids, accepted messages land in OUTBOX_DIR as the JSON that
// would have been sent, with no ids or keys, and nothing goes on the network.
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { useFakeAndOutbox } from "../support/fake-and-outbox";
import {
  VALID_TEMPLATE_PARAMS,
  VALID,
  expectFailure,
  expectRedirect,
  formRequest,
  setupAction,
} from "../support/contact";

const scratch = useFakeAndOutbox("outbox-test-");

it("writes each accepted message as the JSON it would have sent, without keys, owner-readable only", async () => {
  // EMAILJS_API_URL points at the fake to prove the outbox never calls it.
  const { run, events } = setupAction({
    OUTBOX_DIR: path.join(scratch.outbox, "mail"),
    EMAILJS_API_URL: scratch.fake.url,
  });
  const response = expectRedirect(await run(formRequest(VALID)));
  expect(response.status).toBe(303);
  expect(response.location).toBe("/#contact-outcome");
  expectRedirect(await run(formRequest({ ...VALID, subject: "Second" })));

  const files = (await readdir(path.join(scratch.outbox, "mail"))).sort();
  expect(files).toHaveLength(2);
  expect(files.every((file) => file.endsWith(".json"))).toBe(true);
  const first = await readFile(path.join(scratch.outbox, "mail", files[0]!), "utf8");
  const entries = await Promise.all(
    files.map(async (file) => JSON.parse(await readFile(path.join(scratch.outbox, "mail", file), "utf8"))),
  );
  expect(entries).toContainEqual({
    lib_version: "4.4.1",
    template_params: VALID_TEMPLATE_PARAMS,
  });
  expect(entries.map((entry) => entry.template_params.subject).sort()).toEqual(["Engines", "Second"]);
  expect(first).not.toMatch(/user_id|service_id|template_id|accessToken/);
  expect((await stat(path.join(scratch.outbox, "mail", files[0]!))).mode & 0o777).toBe(0o600);

  expect(scratch.fake.requests).toHaveLength(0);
  expect(events).toEqual([
    { outcome: "accepted", transport: "outbox" },
    { outcome: "accepted", transport: "outbox" },
  ]);
});

it("refused input writes nothing", async () => {
  const { run } = setupAction({ OUTBOX_DIR: scratch.outbox });
  expect(expectFailure(await run(formRequest({ ...VALID, email: "nope" }))).status).toBe(400);
  expect(await readdir(scratch.outbox)).toEqual([]);
});

it("an outbox that cannot be written: 500 with the typed text kept", async () => {
  const blocker = path.join(scratch.outbox, "a-file");
  await writeFile(blocker, "");
  const { run, events } = setupAction({ OUTBOX_DIR: path.join(blocker, "outbox") });
  const failure = expectFailure(await run(formRequest(VALID)));
  expect(failure.status).toBe(500);
  expect(failure.data).toEqual({ ok: false, status: 500, reason: "outbox_write_failed", fields: VALID });
  expect(events.at(-1)).toEqual({ outcome: "refused", status: 500, reason: "outbox_write_failed" });
});
