// For a Vitest file: the production server relaying to its own HTTP fake of
// EmailJS, started once before the file's tests and stopped after them.
import { afterAll, beforeAll } from "vitest";
import { startEmailJsFake, type EmailJsFake } from "./emailjs-fake";
import { startAppServer, type AppServer } from "./app-server";
import { relayEnv } from "./contact";

export function useRelayServer(env: Record<string, string> = {}): { app: AppServer; fake: EmailJsFake } {
  const started = {} as { app: AppServer; fake: EmailJsFake };
  beforeAll(async () => {
    started.fake = await startEmailJsFake();
    started.app = await startAppServer({ env: { ...relayEnv(started.fake.url), ...env } });
  }, 60_000);
  afterAll(async () => {
    await started.app?.stop();
    await started.fake?.close();
  });
  return started;
}
