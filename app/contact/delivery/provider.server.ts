// Whether the provider takes mail or refuses the account until the owner acts, kept beside the outbox (decision 047).
import { createHash } from "node:crypto";
import type { MailConfig } from "~/config.server";
import { providerWords, type AskedPause } from "../rules/words.server";
import { refusedOne, type Refusals } from "../rules/refusals.server";
import type { KnownFailure } from "../rules/rulebook.server";
import type { Change, SharedState } from "../store/store.server";

type ProviderState = (
  | { state: "ok" }
  | {
      state: "refusing";
      since: string;
      status: number;
      text: string;
      hint: string;
      settings: string;
      lastProbe: string;
      lastProbeId?: string;
    }
) & {
  asked?: AskedPause;
  failing?: NonNullable<KnownFailure>;
};

const OK: ProviderState = { state: "ok" };

const REFUSED = "refusals";

export type Provider = {
  read(): Promise<ProviderState>;
  refusing(status: number, text: string, hint: string): Promise<boolean>;
  back(): Promise<boolean>;
  failed(failure: NonNullable<KnownFailure>): Promise<void>;
  knownFailure(): Promise<KnownFailure>;
  /** At most one per interval for every instance, never the same message twice in a row while another waits. */
  probeDue(probeSeconds: number, id?: string): Promise<boolean>;
  refusedOne(status: number, text: string, id: string): Promise<string | null>;
  asked(pauseMs: number): Promise<boolean>;
};

export function askedPause(state: ProviderState, now = Date.now()): AskedPause | null {
  const { asked } = state;
  return asked && Date.parse(asked.at) + asked.ms > now ? asked : null;
}

function settingsDigest(mail: MailConfig): string {
  if (mail.mode !== "relay") return "";
  const ids = [mail.apiUrl, mail.publicKey, mail.serviceId, mail.templateId, mail.privateKey ?? ""];
  return createHash("sha256").update(JSON.stringify(ids)).digest("hex").slice(0, 16);
}

export function createProvider(mail: MailConfig, state: SharedState, now = () => new Date()): Provider {
  const RECORD = "provider";
  const settings = settingsDigest(mail);
  const change = <R>(decide: Change<ProviderState, R>) => state.change(RECORD, OK, decide);
  return {
    read: () => state.read<ProviderState>(RECORD, OK),
    refusing: (status, text, hint) =>
      change<boolean>((was) => {
        const at = now().toISOString();
        const since = was.state === "refusing" ? was.since : at;
        const next = {
          state: "refusing",
          since,
          status,
          text: providerWords(text),
          hint,
          settings,
          lastProbe: at,
        } as const;
        return { next, result: was.state !== "refusing" };
      }),
    back: () =>
      change<boolean>((was) =>
        was.state === "ok" && !was.asked && !was.failing
          ? { next: null, result: false }
          : { next: OK, result: was.state !== "ok" },
      ),
    failed: (failure) => change<void>((was) => ({ next: { ...was, failing: failure }, result: undefined })),
    knownFailure: async () => (await state.read<ProviderState>(RECORD, OK)).failing ?? null,
    probeDue: (probeSeconds, id) =>
      change<boolean>((was) => {
        if (was.state !== "refusing") return { next: null, result: false };
        const at = now();
        const since = at.getTime() - Date.parse(was.lastProbe);
        const interval = (id !== undefined && id === was.lastProbeId ? 2 : 1) * probeSeconds * 1_000;
        const due = was.settings !== settings || since >= interval;
        return due
          ? { next: { ...was, settings, lastProbe: at.toISOString(), lastProbeId: id }, result: true }
          : { next: null, result: false };
      }),
    refusedOne: (status, text, id) =>
      state.change<Refusals, string | null>(REFUSED, { refusals: [] }, (recorded) => {
        const { next, hint } = refusedOne(
          recorded,
          { status, words: providerWords(text), id },
          now().getTime(),
        );
        return { next, result: hint };
      }),
    asked: (pauseMs) =>
      change<boolean>((was) => {
        const at = now();
        const asked = { at: at.toISOString(), ms: pauseMs };
        return { next: { ...was, asked }, result: askedPause(was, at.getTime()) === null };
      }),
  };
}
