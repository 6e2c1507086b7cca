// With no EmailJS ids, accepted messages land in OUTBOX_DIR as the JSON that
// would have been sent, with no ids or keys, and nothing goes on the network.
// OUTBOX_DIR also holds the SQLite store (outbox.sqlite): only the .json files are messages.
import { readdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { DATABASE_FILE } from "~/contact/store/sqlite.server";
import { useFakeAndOutbox } from "../support/fake-and-outbox";
import { keptIn } from "../support/store";
import {
  VALID_TEMPLATE_PARAMS,
  VALID,
  expectFailure,
  expectRedirect,
  formRequest,
  setupAction,
} from "../support/contact";

const scratch = useFakeAndOutbox("outbox-test-");

/** The store's own files: the database, and its write-ahead log and index while it is open. */
const STORE_FILES = [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`];

/** The message files in `dir`, sorted; every other file must be the store's. */
async function messageFiles(dir: string) {
  const names = (await readdir(dir)).sort();
  expect(names.filter((name) => !name.endsWith(".json")).every((name) => STORE_FILES.includes(name))).toBe(
    true,
  );
  return names.filter((name) => name.endsWith(".json"));
}

it("writes each accepted message as the JSON it would have sent, without keys, owner-readable only", async () => {
  const mail = path.join(scratch.outbox, "mail");
  // EMAILJS_API_URL points at the fake to prove the outbox never calls it.
  const { run, events } = await setupAction({ OUTBOX_DIR: mail, EMAILJS_API_URL: scratch.fake.url });
  const response = expectRedirect(await run(formRequest(VALID)));
  expect(response.status).toBe(303);
  expect(response.location).toBe("/#contact-outcome");
  expectRedirect(await run(formRequest({ ...VALID, subject: "Second" })));

  const files = await messageFiles(mail);
  expect(files).toHaveLength(2);
  const raws = await Promise.all(files.map((file) => readFile(path.join(mail, file), "utf8")));
  const entries = raws.map((raw) => JSON.parse(raw));
  expect(entries).toContainEqual({
    lib_version: "4.4.1",
    template_params: VALID_TEMPLATE_PARAMS,
  });
  expect(entries.map((entry) => entry.template_params.subject).sort()).toEqual(["Engines", "Second"]);
  for (const raw of raws) expect(raw).not.toMatch(/user_id|service_id|template_id|accessToken/);
  for (const file of files) expect((await stat(path.join(mail, file))).mode & 0o777).toBe(0o600);

  // The folder the app made, and the store beside the messages, are the owner's alone, and hold no ids or keys.
  expect((await stat(mail)).mode & 0o777).toBe(0o700);
  const store = path.join(mail, DATABASE_FILE);
  expect((await stat(store)).mode & 0o777).toBe(0o600);
  for (const name of STORE_FILES.slice(1)) {
    const file = path.join(mail, name);
    const mode = await stat(file).then(
      (info) => info.mode & 0o777,
      () => null,
    );
    if (mode !== null) expect(mode).toBe(0o600);
  }
  const bytes = [await readFile(store, "latin1")];
  bytes.push(await readFile(`${store}-wal`, "latin1").catch(() => ""));
  expect(bytes.join("\n")).not.toMatch(/user_id|service_id|template_id|accessToken/);
  // An outbox message is a file, never a message kept in the store.
  expect(await keptIn(mail)).toEqual([]);

  expect(scratch.fake.requests).toHaveLength(0);
  expect(events).toEqual([
    { outcome: "accepted", transport: "outbox" },
    { outcome: "accepted", transport: "outbox" },
  ]);
});

it("refused input writes nothing", async () => {
  const { run } = await setupAction({ OUTBOX_DIR: scratch.outbox });
  expect(expectFailure(await run(formRequest({ ...VALID, email: "nope" }))).status).toBe(400);
  expect(await messageFiles(scratch.outbox)).toEqual([]);
  expect(await keptIn(scratch.outbox)).toEqual([]);
});

// Root ignores permission bits: a path under a regular file cannot be made a folder by anyone (ENOTDIR).
it("an outbox that cannot be written: 500 with the typed text kept", async () => {
  const outbox = path.join(scratch.outbox, "outbox");
  const { run, events } = await setupAction({ OUTBOX_DIR: outbox });
  // Root ignores permission bits: the folder moved away and a file in its place (ENOTDIR, EEXIST) stops any
  // write into it; the store, open already, goes on in the moved folder.
  await rename(outbox, `${outbox}.moved`);
  await writeFile(outbox, "");
  const failure = expectFailure(await run(formRequest(VALID)));
  expect(failure.status).toBe(500);
  expect(failure.data).toEqual({ ok: false, status: 500, reason: "outbox_write_failed", fields: VALID });
  expect(events.at(-1)).toEqual({ outcome: "refused", status: 500, reason: "outbox_write_failed" });
});
