// One structured JSON line per contact outcome. Never message bodies,
// addresses or keys: only what an operator needs to see the form is healthy.
import { writeLogLine } from "~/lib/log-line.server";
import type { ContactFailureReason } from "./contract";
import type { StoreOutcome } from "./undelivered.server";

export type ContactEvent =
  | { outcome: "accepted"; transport: "relay" | "outbox" }
  | { outcome: "dropped"; reason: "honeypot" }
  | { outcome: "refused"; status: number; reason: ContactFailureReason }
  | {
      outcome: "relayed";
      ok: boolean;
      /** 0 when no HTTP answer came back. */
      upstreamStatus: number;
      attempts: number;
      durationMs: number;
    }
  | {
      /** The relay failed and the message was kept in the undelivered folder (or could not be). */
      outcome: "undelivered";
      reason: ContactFailureReason;
      uncertain: boolean;
      /** new file, an identical message already there, folder full, or the write failed. */
      stored: StoreOutcome | "failed";
    };

export type ContactLogger = (event: ContactEvent) => void;

export const logContactEvent: ContactLogger = (event) => writeLogLine("contact", event);
