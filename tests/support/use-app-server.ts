// One production server for a test file: started before its tests, stopped after.
import { afterAll, beforeAll } from "vitest";
import { startAppServer, type AppServer } from "./app-server";

/** The server, on `.app` once the file's tests run. */
export function useAppServer(options: Parameters<typeof startAppServer>[0] = {}): { app: AppServer } {
  const started = {} as { app: AppServer };
  beforeAll(async () => {
    started.app = await startAppServer(options);
  }, 60_000);
  afterAll(async () => {
    await started.app?.stop();
  });
  return started;
}
