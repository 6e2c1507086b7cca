// Where the store itself fails, on the production server and its SQLite file: another process's write lock
// during a send, a full disk, a read-only file, a file the owner's CLI may not read or that is not a database,
// a copy of the file alone after SIGTERM, and a sender killed mid-send. Nothing is mailed twice or lost, and
// what the owner and the visitor hear is true.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { copyFile, mkdir, mkdtemp, open, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASE_FILE } from "~/contact/store/sqlite.server";
import { ROOT, startAppServer, type AppServer } from "../support/app-server";
import { BROWSER_HEADERS, VALID, postForm, relayEnv } from "../support/contact";
import { useFakeAndOutbox } from "../support/fake-and-outbox";
import { fetchProof } from "../support/proof";
import { CLI, runOutboxCli } from "../support/outbox-cli";
import { keep, keptIn } from "../support/store";

const scratch = useFakeAndOutbox("store-faults-");
const ROOT_HERE = process.getuid?.() === 0;
let server: AppServer | null = null;
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  await server?.stop();
  server = null;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const env = (outbox = scratch.outbox, backoffSeconds = 1) =>
  relayEnv(scratch.fake.url, {
    OUTBOX_DIR: outbox,
    TRUST_PROXY: "1",
    CONTACT_REDELIVER_FIRST_SECONDS: String(backoffSeconds),
    CONTACT_REDELIVER_UNCERTAIN_SECONDS: String(backoffSeconds),
    CONTACT_REDELIVER_MAX_SECONDS: String(backoffSeconds),
  });
const start = async (outbox = scratch.outbox, backoffSeconds = 1, extra: Record<string, string> = {}) =>
  (server = await startAppServer({ env: { ...env(outbox, backoffSeconds), ...extra } }));

async function post(subject: string, client = "203.0.113.30") {
  const response = await postForm(
    `${server!.url}/?index`,
    { ...VALID, subject, message: `${VALID.message} ${subject}` },
    { ...BROWSER_HEADERS, "X-Forwarded-For": client },
  );
  return response.status;
}
const arrivals = (subject: string) => scratch.fake.requests.filter((r) => r.rawBody.includes(`"${subject}"`));
const mailed = (subject: string) => arrivals(subject).filter((request) => request.status === 200).length;
const lines = (outcome: string) => server!.output().split(`"outcome":"${outcome}"`).length - 1;
const health = async () =>
  ((await (await fetch(`${server!.url}/healthz`)).json()) as { store: string }).store;
const cli = (args: string[], outbox = scratch.outbox) => runOutboxCli(args, env(outbox));

/** Another process on the store's file that takes SQLite's write lock when told, and gives it back when told. */
async function lockHolder(file: string) {
  const script = `const db = new (require("node:sqlite").DatabaseSync)(process.argv[1]);
    process.stdin.on("data", (d) => { for (const c of d.toString().split("\\n").filter(Boolean)) {
      db.exec(c === "lock" ? "BEGIN IMMEDIATE" : "COMMIT"); console.log(c); } });
    console.log("ready");`;
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ["-e", script, file]);
  cleanups.push(() => child.kill());
  let said = "";
  child.stdout.on("data", (chunk) => (said += chunk));
  const told = async (word: string) =>
    expect.poll(() => said.split("\n").includes(word), { timeout: 10_000, interval: 20 }).toBe(true);
  await told("ready");
  return {
    lock: async () => (child.stdin.write("lock\n"), told("lock")),
    release: async () => (child.stdin.write("release\n"), told("release")),
  };
}

describe("another process holds the store's write lock", { timeout: 60_000 }, () => {
  it("while a send is in flight: the mail is not sent again, pages and /healthz answer, and the store says so once", async () => {
    await start();
    const holder = await lockHolder(path.join(scratch.outbox, DATABASE_FILE));
    // EmailJS takes it, answering two seconds after the request arrives; the lock is taken meanwhile.
    scratch.fake.setMode({ kind: "status", status: 200, body: "OK", delayMs: 2_000 });
    const posted = post("Sent under a lock");
    await expect.poll(() => arrivals("Sent under a lock").length, { timeout: 10_000, interval: 20 }).toBe(1);
    await holder.lock();
    expect(await posted).toBe(303);
    // The removal after the 200 waits for the lock without holding the server: the page and /healthz answer.
    await expect.poll(() => lines("store_refusing"), { timeout: 15_000, interval: 50 }).toBe(1);
    expect((await fetch(`${server!.url}/`)).status).toBe(200);
    expect(await health()).toBe("refusing_writes");
    await holder.release();
    // Removed once the lock is free, long before its claim could end: it is never sent a second time.
    await expect.poll(() => keptIn(scratch.outbox), { timeout: 10_000, interval: 100 }).toEqual([]);
    await expect.poll(health, { timeout: 10_000, interval: 100 }).toBe("ok");
    expect(arrivals("Sent under a lock")).toHaveLength(1);
    expect([lines("store_refusing"), lines("store_ok"), lines("redelivery_error")]).toEqual([1, 1, 0]);
  });
});

/** A small file system of its own under the store, where this machine lets the test mount one. */
async function smallDisk(): Promise<string | null> {
  const dir = await mkdtemp(path.join(tmpdir(), "store-disk-"));
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", dir]);
  if (mounted.status !== 0) {
    console.warn(`store-faults: the full disk is skipped: mount refused (${String(mounted.stderr).trim()})`);
    return null;
  }
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  cleanups.push(() => spawnSync("umount", ["-l", dir]));
  return dir;
}

/** Fills the file system under `dir` to the last byte. */
async function fill(dir: string) {
  const filler = await open(path.join(dir, "filler"), "w");
  const block = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) await filler.write(block);
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe("ENOSPC");
  }
  for (let size = 4096; size >= 1; size = Math.floor(size / 2)) {
    try {
      for (;;) await filler.write(Buffer.alloc(size, 1));
    } catch {
      // Full at this size: a smaller one next.
    }
  }
  await filler.close();
}

describe("the disk under the store fills up while messages wait", { timeout: 90_000 }, () => {
  it("nothing is mailed twice, a visitor hears the failure text with a 503, status says so, and all go once freed", async () => {
    const disk = ROOT_HERE ? await smallDisk() : null;
    if (!disk) return;
    const outbox = path.join(disk, "outbox");
    // Tried again 5 s after each failure: time for the store to fold its log into the file, idle, first.
    await start(outbox, 5);
    scratch.fake.setMode({ kind: "status", status: 500, body: "The service is not available" });
    const subjects = ["Full 1", "Full 2", "Full 3"];
    for (const [i, subject] of subjects.entries())
      expect(await post(subject, `203.0.113.${40 + i}`)).toBe(502);
    // Idle, its log folded in and emptied: every next write needs a byte of the disk.
    const log = path.join(outbox, `${DATABASE_FILE}-wal`);
    await expect.poll(async () => (await stat(log)).size, { timeout: 10_000, interval: 50 }).toBe(0);
    await fill(disk);
    scratch.fake.setMode({ kind: "status", status: 200, body: "OK" });
    // Its first write refused, the store says so once; nothing more leaves for EmailJS.
    await expect.poll(() => lines("store_refusing"), { timeout: 20_000, interval: 100 }).toBe(1);
    expect(await post("Posted on a full disk", "203.0.113.50")).toBe(503);
    const status = await cli(["status"], outbox);
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/store {7}refusing writes since .*: database or disk is full/);
    expect(arrivals("Posted on a full disk")).toHaveLength(0);
    for (const subject of subjects) expect(mailed(subject)).toBeLessThanOrEqual(1);

    await rm(path.join(disk, "filler"));
    await expect.poll(() => keptIn(outbox), { timeout: 30_000, interval: 200 }).toEqual([]);
    expect(subjects.map(mailed)).toEqual([1, 1, 1]);
    expect([lines("store_refusing"), lines("store_ok"), lines("redelivery_error")]).toEqual([1, 1, 0]);
  });
});

describe("a file the store cannot use", { timeout: 60_000 }, () => {
  it("read-only at start: said once, nothing sent and no line a pass, status exits 1; writable again, all go", async () => {
    for (const subject of ["Read-only 1", "Read-only 2"]) await keep(scratch.outbox, subject);
    const file = path.join(scratch.outbox, DATABASE_FILE);
    // Root writes any file its mode forbids: an immutable file it cannot.
    const readOnly = ROOT_HERE ? spawnSync("chattr", ["+i", file]) : spawnSync("chmod", ["0400", file]);
    if (readOnly.status !== 0) {
      console.warn(`store-faults: the read-only file is skipped (${String(readOnly.stderr).trim()})`);
      return;
    }
    const writable = () =>
      spawnSync(ROOT_HERE ? "chattr" : "chmod", ROOT_HERE ? ["-i", file] : ["0600", file]);
    cleanups.push(writable);
    // With the proof of a person on: a proof that cannot be recorded as used is no reason for a 500.
    await start(scratch.outbox, 1, { CONTACT_BOT_CHECKS: "on", CONTACT_PROOF_MIN_SECONDS: "0" });
    expect(server!.output()).toMatch(
      /"outcome":"store_refusing","cause":"attempt to write a readonly database"/,
    );
    const headers = { ...BROWSER_HEADERS, Origin: server!.url, "Sec-Fetch-Site": "same-origin" };
    const proof = await fetchProof(server!.url, headers);
    const typed = { ...VALID, subject: "Proven on a read-only store", altcha: proof.payload };
    const refused = await postForm(`${server!.url}/?index`, typed, headers);
    expect(refused.status).toBe(503);
    expect(await refused.text()).toContain("Proven on a read-only store");
    const status = await cli(["status"]);
    expect(status.code).toBe(1);
    expect(status.stdout).toContain("refusing writes since");
    expect(status.stdout).toMatch(/waiting {5}2 message\(s\)/);
    expect(scratch.fake.requests).toHaveLength(0);
    expect([lines("store_refusing"), lines("redelivery_error")]).toEqual([1, 0]);

    writable();
    await expect.poll(() => keptIn(scratch.outbox), { timeout: 20_000, interval: 200 }).toEqual([]);
    for (const subject of ["Read-only 1", "Read-only 2"]) expect(arrivals(subject)).toHaveLength(1);
    expect(lines("store_ok")).toBe(1);
  });

  it("the owner's CLI that may not read it, or a file that is not a database: one line and exit 1, never none", async () => {
    await keep(scratch.outbox, "Unreadable to the CLI");
    const file = path.join(scratch.outbox, DATABASE_FILE);
    let unreadable: Awaited<ReturnType<typeof cli>>;
    if (ROOT_HERE) {
      // Root reads every file: the file made another user's, and the CLI run without root's right to read it.
      spawnSync("chown", ["65534:65534", file, scratch.outbox]);
      unreadable = await runWithoutReadRights(["status"]);
    } else {
      spawnSync("chmod", ["0000", file]);
      cleanups.push(() => spawnSync("chmod", ["0600", file]));
      unreadable = await cli(["status"]);
    }
    expect(unreadable.code).toBe(1);
    expect(unreadable.stdout).toBe("");
    expect(unreadable.stderr.trim()).toMatch(
      new RegExp(`^StoreError: cannot open ${file}: user \\S+ may not`),
    );
    expect(unreadable.stderr.trim().split("\n")).toHaveLength(1);

    const notADatabase = path.join(scratch.outbox, "elsewhere");
    await mkdir(notADatabase);
    await writeFile(path.join(notADatabase, DATABASE_FILE), "not a database, only words\n".repeat(200));
    for (const command of ["status", "list", "resend"]) {
      const run = await cli([command], notADatabase);
      expect(run.code, command).toBe(1);
      expect(run.stdout).not.toMatch(/none|0 undelivered|0 sent/);
      expect(run.stderr.trim()).toBe(
        `StoreError: cannot open ${notADatabase}/${DATABASE_FILE}: it is not an SQLite database`,
      );
    }
    // The server too: it stops at start with that one line, as with a bad setting.
    const refused = await startAppServer({ env: env(notADatabase) }).then(
      (started) => started.stop().then(() => "started"),
      (error: Error) => error.message,
    );
    expect(refused).toContain(
      `StoreError: cannot open ${notADatabase}/${DATABASE_FILE}: it is not an SQLite database`,
    );
    expect(refused).not.toMatch(/\n\s+at /);
  });
});

/** The CLI as root without the rights to read or search files it does not own (another user's file). */
function runWithoutReadRights(args: string[]) {
  const { PATH = "" } = process.env;
  const run = spawnSync(
    "setpriv",
    ["--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search", process.execPath, CLI, ...args],
    { cwd: ROOT, env: { PATH, NODE_ENV: "production", ...env() }, encoding: "utf8" },
  );
  return Promise.resolve({ code: run.status, stdout: run.stdout, stderr: run.stderr });
}

describe("stopping and copying", { timeout: 60_000 }, () => {
  it("after SIGTERM the file alone holds every kept message, and the server said at start how many it held", async () => {
    for (const subject of ["Copied 1", "Copied 2", "Copied 3"])
      await keep(scratch.outbox, subject, { nextAttempt: Date.now() + 3_600_000 });
    await start();
    const started = server!.output();
    scratch.fake.setMode({ kind: "status", status: 500, body: "The service is not available" });
    expect(await post("Copied 4")).toBe(502);
    expect(await server!.stop()).toBe(0);
    server = null;
    const alone = await mkdtemp(path.join(tmpdir(), "store-copy-"));
    cleanups.push(() => rm(alone, { recursive: true, force: true }));
    await copyFile(path.join(scratch.outbox, DATABASE_FILE), path.join(alone, DATABASE_FILE));
    const copied = (await keptIn(alone)).map((message) => message.params.subject).sort();
    expect(copied).toEqual(["Copied 1", "Copied 2", "Copied 3", "Copied 4"]);
    expect(started).toMatch(/"outcome":"store_opened","where":"[^"]+","kept":3,"spam":0/);
  });

  it("outbox backup writes a consistent copy while the server runs, owner-only, never over a file", async () => {
    await keep(scratch.outbox, "Backed up", { nextAttempt: Date.now() + 3_600_000 });
    await start();
    const copy = path.join(scratch.outbox, "copy.sqlite");
    const made = await cli(["backup", copy]);
    expect(made.code).toBe(0);
    expect(made.stdout).toContain(`copied ${path.join(scratch.outbox, DATABASE_FILE)} to ${copy}`);
    expect((await stat(copy)).mode & 0o777).toBe(0o600);
    const restored = await mkdtemp(path.join(tmpdir(), "store-restored-"));
    cleanups.push(() => rm(restored, { recursive: true, force: true }));
    await copyFile(copy, path.join(restored, DATABASE_FILE));
    expect((await keptIn(restored)).map((message) => message.params.subject)).toEqual(["Backed up"]);
    const again = await cli(["backup", copy]);
    expect([again.code, again.stderr.trim()]).toEqual([1, `${copy} exists: give a new file`]);
  });
});

describe("a sender killed mid-send", { timeout: 60_000 }, () => {
  it("list, status and resend agree: it may have arrived, and its next attempt is when its claim ends", async () => {
    await start();
    scratch.fake.setMode({ kind: "hang" });
    void post("Killed mid-send").catch(() => undefined);
    await expect.poll(() => arrivals("Killed mid-send").length, { timeout: 10_000, interval: 20 }).toBe(1);
    const killedAt = Date.now();
    server!.child.kill("SIGKILL");
    await server!.stop();
    server = null;
    scratch.fake.setMode({ kind: "status", status: 200, body: "OK" });

    const listed = await cli(["list"]);
    const next = Date.parse(/next attempt (\S+),/.exec(listed.stdout)?.[1] ?? "");
    expect(listed.stdout).toContain("uncertain: may have been delivered");
    expect(next).toBeGreaterThan(killedAt + 50_000);
    const status = await cli(["status"]);
    expect(status.stdout).toContain(`next attempt ${new Date(next).toISOString()}`);
    const resent = await cli(["resend"]);
    expect(resent.stdout).toMatch(/^busy {2}.*"Killed mid-send".*uncertain: may have been delivered/m);
    expect(resent.stdout).toMatch(
      /0 sent, 0 still undelivered, 1 held by another sender until its next attempt/,
    );
    expect(arrivals("Killed mid-send")).toHaveLength(1);
  });
});
