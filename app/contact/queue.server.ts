// The port both engines stand behind: BullMQ on Redis with REDIS_URL, else the outbox folder for one process
// (decision 053). The action sends through `delivery`; the owner's commands go through `owner`.
import type { ContactFailureReason } from "./contract";
import type { TemplateParams } from "./emailjs.server";
import type { HeldFor as HeldBack } from "./events.server";
import type { Allowances } from "./limits.server";
import type { Kept } from "./message-state";

export type Sent =
  { ok: true; held?: HeldBack } | { ok: false; status: number; reason: ContactFailureReason };

export type Delivery = {
  send(params: TemplateParams, allowances: Allowances): Promise<Sent>;
  keepAsSpam(params: TemplateParams, signals: string[], allowances: Allowances): Promise<boolean>;
};

/** What became of a message the owner sent: mailed, or still kept (and how). */
export type SendNow = { sent: true } | { sent: false; kept: Kept | null };

export type OwnerPort = {
  engine: "redis" | "folder";
  /** Every waiting, held and given-up message, oldest first; what could not be read, apart. */
  list(): Promise<{ messages: Kept[]; skipped: { id: string; problem: string }[] }>;
  get(id: string): Promise<Kept | null>;
  remove(id: string): Promise<boolean>;
  /** A held message, sent as any waiting one; null when no such held message. */
  release(id: string): Promise<SendNow | null>;
  /** A waiting or given-up message, sent now; null when there is none by that id. */
  sendNow(id: string): Promise<SendNow | null>;
  test(params: TemplateParams): Promise<SendNow>;
  close(): Promise<void>;
};

export type Engine = {
  delivery: Delivery;
  /** The owner's commands on the queue; null on the folder, where server/outbox-cli.ts works on the files. */
  owner: OwnerPort | null;
  /** The background: redelivery, retention, the owner's alerts. */
  start(): { stop(): Promise<void> };
};
