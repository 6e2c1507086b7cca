// The port both engines stand behind: BullMQ on Redis with REDIS_URL, else the store, on one SQLite file or
// PostgreSQL (decisions 053, 057, 062, 063). The action sends through `delivery`; the owner's commands go through `owner`.
import type { Kept, Sent, TemplateParams } from "../rules/message.server";
import type { StoreHealth } from "../store/store.server";

export type { Sent } from "../rules/message.server";

/** A post that passed its client's limits: who sent it (its network: an IPv4 /24, an IPv6 /48). */
export type Admitted = { client: string; network: string };

/** `first`: the client kept nothing before this one. */
export type StoreAllowance = false | { first: boolean };

/** What delivery asks of the client's limits as it sends or keeps a message. */
export type Quotas = {
  keep(sender: Admitted, spam: boolean): Promise<StoreAllowance>;
  networkShare(network: string): Promise<{ ok: true } | { ok: false; retryMs: number }>;
  /** The provider's failure, not the visitor's (decision 008). */
  giveBack(sender: Admitted): Promise<void>;
};

export type Delivery = {
  send(params: TemplateParams, sender: Admitted): Promise<Sent>;
  keepAsSpam(params: TemplateParams, signals: string[], sender: Admitted): Promise<boolean>;
};

/** What became of a message the owner sent: mailed, or still kept (and how); `busy`: another sender holds it. */
export type SendNow = { sent: true } | { sent: false; kept: Kept | null; busy?: boolean };

export type Skipped = { id: string; problem: string };

export type OwnerPort = {
  /** Where the messages are kept, in the owner's words: "the queue", or the store's file. */
  where: string;
  /** Whether the store takes writes: nothing is sent while it refuses them. */
  health(): StoreHealth;
  /** Every waiting, held and given-up message, oldest first; what could not be read, apart. */
  list(): Promise<{ messages: Kept[]; skipped: Skipped[] }>;
  get(id: string): Promise<Kept | null>;
  remove(id: string): Promise<boolean>;
  /** A held message, sent as any waiting one; null when no such held message. */
  release(id: string): Promise<SendNow | null>;
  /** A waiting or given-up message, sent now; null when there is none by that id. */
  sendNow(id: string): Promise<SendNow | null>;
  /** Every waiting and given-up message sent now, one at a time, each told; one another process holds is told as it stands. */
  resend(each: (message: Kept, sent: SendNow) => void): Promise<{ skipped: Skipped[] }>;
  test(params: TemplateParams): Promise<SendNow>;
  close(): Promise<void>;
};

export type Engine = {
  delivery: Delivery;
  /** The owner's commands, for the CLI and the owner's page alike. */
  owner: OwnerPort;
  /** The background: redelivery, retention, the owner's alerts. */
  start(): { stop(): Promise<void> };
};
