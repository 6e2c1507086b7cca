// The engine's port: the action sends through `delivery`, the owner's commands go through `owner` (decision 062).
import type { Kept, Sent, TemplateParams } from "../rules/message.server";
import type { StoreHealth } from "../store/store.server";

export type { Sent } from "../rules/message.server";

/** A post that passed its client's limits; `network`: an IPv4 /24, an IPv6 /48. */
export type Admitted = { client: string; network: string };

export type StoreAllowance = false | { first: boolean };

export type Quotas = {
  keep(sender: Admitted, spam: boolean): Promise<StoreAllowance>;
  networkShare(network: string): Promise<{ ok: true } | { ok: false; retryMs: number }>;
  giveBack(sender: Admitted): Promise<void>;
};

export type Delivery = {
  send(params: TemplateParams, sender: Admitted): Promise<Sent>;
  keepAsSpam(params: TemplateParams, signals: string[], sender: Admitted): Promise<boolean>;
};

export type SendNow = { sent: true } | { sent: false; kept: Kept | null; busy?: boolean };

export type OwnerPort = {
  where: string;
  health(): StoreHealth;
  list(): Promise<Kept[]>;
  get(id: string): Promise<Kept | null>;
  remove(id: string): Promise<boolean>;
  release(id: string): Promise<SendNow | null>;
  sendNow(id: string): Promise<SendNow | null>;
  resend(each: (message: Kept, sent: SendNow) => void): Promise<void>;
  test(params: TemplateParams): Promise<SendNow>;
  close(): Promise<void>;
};

export type Engine = { delivery: Delivery; owner: OwnerPort; start(): { stop(): Promise<void> } };
