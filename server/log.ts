import type { Request } from "express";
import { writeLogLine } from "../app/lib/log-line.server";

/** One short JSON line per request the server refuses; never a body, a cookie or a stack. */
export function logRefusal(status: number, reason: string, req: Request) {
  writeLogLine("refused", {
    status,
    reason,
    method: req.method.slice(0, 16),
    path: req.originalUrl.slice(0, 200),
  });
}
