// The project's files and functions one sent post runs through, on each database of the store: V8's precise
// coverage of the contact action (sources loaded by Vite), around one valid post with a solved proof. Runs in
// a process of its own, `node bench/lib/post-path.mjs`, which prints its rows as JSON and exits.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/sha";
import { importTs, ROOT } from "./ts.mjs";

/** Counts what ran under app/ during `work`: functions called at least once, and the files they are in. */
async function covered(session, work) {
  await session.post("Profiler.takePreciseCoverage"); // resets the counts
  const answer = await work();
  const { result } = await session.post("Profiler.takePreciseCoverage");
  const files = new Map();
  for (const script of result) {
    const file = script.url.replace(/^file:\/\//, "").replace(/\?.*$/, "");
    if (!file.startsWith(`${ROOT}app/`)) continue;
    // Named functions only: a script's top level (run at import) and callbacks are not the post's steps, and
    // `get` is Vite's getter of an export, run when a constant is read.
    const named = (fn) => fn.functionName && fn.functionName !== "get";
    const called = script.functions.filter((fn) => named(fn) && fn.ranges[0].count > 0).length;
    const name = path.relative(ROOT, file);
    if (called) files.set(name, (files.get(name) ?? 0) + called);
  }
  return { answer, files };
}

/**
 * Rows for "sqlite" (no DATABASE_URL: OUTBOX_DIR/outbox.sqlite) and "postgres" (DATABASE_URL, a fresh database
 * on a PostgreSQL server of its own): the files, their functions.
 */
export function measurePostPath() {
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (child.status !== 0) throw new Error(`the post's path: exit ${child.status}`);
  return JSON.parse(child.stdout.trim().split("\n").at(-1));
}

async function measure() {
  // Before the sources are compiled: V8 counts the calls of what it compiles after.
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
  const { modules, close } = await importTs(
    "tests/support/contact.ts",
    "tests/support/emailjs-fake.ts",
    "tests/support/postgres-server.ts",
    "app/contact/index.server.ts",
  );
  const [contact, { startEmailJsFake }, { startPostgresServer, freshDatabase }, feature] = modules;
  const fake = await startEmailJsFake();
  const postgres = await startPostgresServer();
  const rows = [];
  try {
    for (const engine of ["sqlite", "postgres"]) {
      const outbox = mkdtempSync(path.join(os.tmpdir(), "bench-post-path-"));
      const config = contact.testConfig(
        contact.relayEnv(fake.url, {
          OUTBOX_DIR: outbox,
          CONTACT_PROOF_MIN_SECONDS: "0",
          ...(engine === "postgres" ? { DATABASE_URL: await freshDatabase(postgres.url) } : {}),
        }),
      );
      const built = await feature.createContactServices(config, { toName: contact.OWNER, log: () => {} });
      const background = built.engine.start();
      const action = feature.createContactAction(built);
      let n = 0;
      const postOne = async () => {
        n++;
        const client = `10.0.${n}.1`;
        const challenge = await built.proof.challenge(client);
        const { counter, derivedKey } = await solveChallenge({ challenge, deriveKey });
        const altcha = Buffer.from(JSON.stringify({ challenge, solution: { counter, derivedKey } })).toString(
          "base64",
        );
        const message = `${contact.VALID.message} (${engine} ${n})`;
        const request = contact.formRequest({ ...contact.VALID, subject: `Path ${n}`, message, altcha });
        // As the server gives it: the form was posted from this site (an Origin header of its own).
        return action({ request, params: {}, context: { clientAddress: client, sentOrigin: true } });
      };
      await postOne(); // the first post builds what is built once
      const mailed = fake.requests.length;
      const { answer, files } = await covered(session, postOne);
      if (answer.kind !== "redirect" || fake.requests.length !== mailed + 1) {
        throw new Error(`the post was not mailed: ${JSON.stringify(answer)}`);
      }
      const functions = [...files.values()].reduce((a, b) => a + b, 0);
      rows.push({ engine, files: Object.fromEntries(files), fileCount: files.size, functions });
      await background.stop();
      await built.store.close();
      rmSync(outbox, { recursive: true, force: true });
    }
  } finally {
    session.disconnect();
    await postgres.remove();
    await fake.close();
    await close();
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await measure();
  console.log(JSON.stringify(rows));
  // What the services start and never stop (they live as long as a server) would keep it alive: it ends here.
  process.exit(0);
}
