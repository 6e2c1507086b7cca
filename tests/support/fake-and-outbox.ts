// For a Vitest file: the HTTP fake of the EmailJS API, started once and reset before each test, and
// a fresh outbox folder for each test, removed after it. Read `fake` and `outbox` inside tests.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { startEmailJsFake, type EmailJsFake } from "./emailjs-fake";

export function useFakeAndOutbox(prefix: string): { fake: EmailJsFake; outbox: string } {
  const scratch = {} as { fake: EmailJsFake; outbox: string };
  beforeAll(async () => {
    scratch.fake = await startEmailJsFake();
  });
  afterAll(() => scratch.fake?.close());
  beforeEach(async () => {
    scratch.fake.reset();
    scratch.outbox = await mkdtemp(path.join(tmpdir(), prefix));
  });
  afterEach(() => rm(scratch.outbox, { recursive: true, force: true }));
  return scratch;
}
