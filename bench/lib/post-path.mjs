// The project's files and functions one sent post runs through, on each engine: V8's precise coverage of
// the contact action (sources loaded by Vite), around one valid post with a solved proof. Runs in a process
// of its own, `node bench/lib/post-path.mjs [ROOT]`, which prints its rows as JSON and exits.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/sha";
import { importTsAt, ROOT } from "./ts.mjs";

/** Counts what ran under `root`'s app/ during `work`: functions called at least once, and the files they are in. */
async function covered(session, root, work) {
  await session.post("Profiler.takePreciseCoverage"); // resets the counts
  const answer = await work();
  const { result } = await session.post("Profiler.takePreciseCoverage");
  const files = new Map();
  for (const script of result) {
    const file = script.url.replace(/^file:\/\//, "").replace(/\?.*$/, "");
    if (!file.startsWith(`${root}app/`)) continue;
    // Named functions only: a script's top level (run at import) and callbacks are not the post's steps, and
    // `get` is Vite's getter of an export, run when a constant is read.
    const named = (fn) => fn.functionName && fn.functionName !== "get";
    const called = script.functions.filter((fn) => named(fn) && fn.ranges[0].count > 0).length;
    const name = path.relative(root, file);
    if (called) files.set(name, (files.get(name) ?? 0) + called);
  }
  return { answer, files };
}

/**
 * `root`: the checkout to measure (this one, or an earlier revision's worktree, ending with a slash). Rows
 * for "sqlite" (no REDIS_URL) and "queue" (REDIS_URL on a redis-server of its own): the files, their functions.
 */
export function measurePostPath(root = ROOT) {
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), root], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (child.status !== 0) throw new Error(`the post's path in ${root}: exit ${child.status}`);
  return JSON.parse(child.stdout.trim().split("\n").at(-1));
}

async function measure(root) {
  // Before the sources are compiled: V8 counts the calls of what it compiles after.
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
  const { modules, close } = await importTsAt(root, [
    "tests/support/contact.ts",
    "tests/support/emailjs-fake.ts",
    "tests/support/redis-server.ts",
    "app/contact/services.server.ts",
    "app/contact/post.server.ts",
    "app/lib/redis.server.ts",
  ]);
  const [contact, { startEmailJsFake }, { startRedisServer }, services, post, redisLink] = modules;
  const fake = await startEmailJsFake();
  const redis = await startRedisServer();
  const rows = [];
  try {
    for (const engine of ["sqlite", "queue"]) {
      const outbox = mkdtempSync(path.join(os.tmpdir(), "bench-post-path-"));
      const config = contact.testConfig(
        contact.relayEnv(fake.url, {
          OUTBOX_DIR: outbox,
          CONTACT_PROOF_MIN_SECONDS: "0",
          ...(engine === "queue" ? { REDIS_URL: redis.url } : {}),
        }),
      );
      const link = engine === "queue" ? redisLink.sharedRedis(redis.url) : null;
      const built = services.createContactServices(config, {
        toName: contact.OWNER,
        redis: link,
        log: () => {},
      });
      // An earlier revision without the engines' port ran its redelivery apart: no post waits for it.
      const background = built.engine?.start() ?? { stop: async () => {} };
      const action = post.createContactAction(built);
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
      const { answer, files } = await covered(session, root, postOne);
      if (answer.kind !== "redirect" || fake.requests.length !== mailed + 1) {
        throw new Error(`the post was not mailed: ${JSON.stringify(answer)}`);
      }
      const functions = [...files.values()].reduce((a, b) => a + b, 0);
      rows.push({ engine, files: Object.fromEntries(files), fileCount: files.size, functions });
      await background.stop();
      await built.engine?.owner.close();
      rmSync(outbox, { recursive: true, force: true });
    }
  } finally {
    session.disconnect();
    await redis.stop();
    await fake.close();
    await close();
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await measure(process.argv[2] ?? ROOT);
  console.log(JSON.stringify(rows));
  // The services' Redis connections are never closed (they live as long as a server): the process ends here.
  process.exit(0);
}
