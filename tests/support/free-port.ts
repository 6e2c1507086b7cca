import { createServer } from "node:net";

/** Asks the OS for a free port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/**
 * `start` on a free port, and again on another (three tries in all) when its error says `taken`: another
 * process took the port between the look and the bind, as happens on a busy machine.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, taken: RegExp): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await start(await freePort());
    } catch (error) {
      if (tries === 3 || !taken.test((error as Error).message)) throw error;
    }
  }
}
