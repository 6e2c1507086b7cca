import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";

/** Longer than the mail relay's 10 s deadline plus rendering: a post in flight at SIGTERM is answered. */
const DRAIN_BOUND_MS = 15_000;

// Cuts idle connections, answers the rest, lets `finish` end, then `close`; exits 0; 1 if the bound runs out.
export function drainOnSignal(
  server: Server,
  finish: () => Promise<void>,
  close: () => Promise<void> = async () => {},
  boundMs = DRAIN_BOUND_MS,
) {
  const sockets = new Set<Socket>();
  const inFlight = new Map<Socket, IncomingMessage>();
  let stopping = false;

  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("request", (req: IncomingMessage, res) => {
    inFlight.set(req.socket, req);
    res.once("close", () => {
      if (inFlight.get(req.socket) === req) inFlight.delete(req.socket);
      // A keep-alive connection that just answered its last request.
      if (stopping) server.closeIdleConnections();
    });
  });

  const cutUnfinished = () => {
    for (const socket of sockets) {
      const req = inFlight.get(socket);
      if (!req || !req.complete) socket.destroy();
    }
  };

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      stopping = true;
      console.log(`[shutdown] ${signal}: answering requests in flight (at most ${boundMs / 1000} s)`);
      const answered = new Promise<void>((resolve) => server.close(() => resolve()));
      void Promise.all([answered, finish()])
        .then(close)
        .then(() => {
          console.log("[shutdown] every request answered");
          process.exit(0);
        });
      cutUnfinished();
      setTimeout(() => {
        console.error(`[shutdown] requests still open after ${boundMs / 1000} s; exiting`);
        process.exit(1);
      }, boundMs).unref();
    });
  }
}
