// Without REDIS_URL one server process owns OUTBOX_DIR: a second one on the same folder says so once at
// start, the first says nothing, and the folder is free again after they stop (decision 051).
import { mkdtemp, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startAppServer, type AppServer } from "../support/app-server";

const SHARED = /another server process/g;

let outbox: string;
let servers: AppServer[] = [];
beforeEach(async () => {
  outbox = await mkdtemp(path.join(tmpdir(), "folder-owner-"));
});
afterEach(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  servers = [];
  await rm(outbox, { recursive: true, force: true });
});

const start = async () => {
  const server = await startAppServer({ env: { OUTBOX_DIR: outbox } });
  servers.push(server);
  return server;
};

it("a second server on one folder without REDIS_URL warns at start; the first and one alone do not", async () => {
  const first = await start();
  const second = await start();
  const warning = second.output().match(/^.*another server process.*$/gm);
  expect(warning).toEqual([
    `[contact] another server process (pid ${first.child.pid} on ${hostname()}) uses OUTBOX_DIR ${outbox}: without REDIS_URL only one process may use it; set REDIS_URL to run several`,
  ]);
  expect(first.output()).not.toMatch(SHARED);

  expect(await second.stop()).toBe(0);
  expect(await first.stop()).toBe(0);
  const alone = await start();
  expect(alone.output()).not.toMatch(SHARED);
}, 90_000);
