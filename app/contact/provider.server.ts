// Whether the provider takes mail or refuses the account until the owner acts, kept beside the outbox (decision 047).
import { createHash } from "node:crypto";
import type { MailConfig } from "~/config.server";
import type { SharedState } from "./shared-state.server";

/** A refusal only the owner can fix, with what to do; null for a refusal of one message or a passing fault. */
export function accountRefusal(status: number, text: string): string | null {
  if (status === 403 && /non-browser/i.test(text)) {
    return "enable API for non-browser applications in EmailJS, Account → Security";
  }
  if (status === 412) return "reconnect the email service (e.g. Gmail) in EmailJS, Email Services";
  if (status >= 400 && status < 500 && status !== 429) {
    if (/public key|user(_| )?id|service id|template id|private key|access ?token/i.test(text)) {
      return "check EMAILJS_PUBLIC_KEY, EMAILJS_SERVICE_ID, EMAILJS_TEMPLATE_ID and EMAILJS_PRIVATE_KEY against the EmailJS dashboard";
    }
  }
  return null;
}

/** A pause EmailJS asked for past RETRY_AFTER_CAP_MS: when it last asked, and for how long (decision 050). */
export type AskedPause = { at: string; ms: number };

export type ProviderState = (
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
) & { asked?: AskedPause };

const OK: ProviderState = { state: "ok" };

type Refused = { refusals: { status: number; words: string; id: string; at: number }[] };
const REFUSED = "refusals";
const REFUSAL_MEMORY_MS = 86_400_000;
const REFUSALS_KEPT = 20;

export type Provider = {
  read(): Promise<ProviderState>;
  refusing(status: number, text: string, hint: string): Promise<boolean>;
  back(): Promise<boolean>;
  /** A probe, at most one per interval for every instance, never the same message twice in a row while another waits. */
  probeDue(probeSeconds: number, id?: string): Promise<boolean>;
  /**
   * One message refused for itself: null, unless a different message was refused the same way within a day,
   * and then the account's refusal, in the provider's own words.
   */
  refusedOne(status: number, text: string, id: string): Promise<string | null>;
  /** Records a pause asked past the cap; true when it starts an episode (none in force before), to tell the owner. */
  asked(pauseMs: number): Promise<boolean>;
};

/** The pause asked for, while it is in force: until its time passes or a message goes through. */
export function askedPause(state: ProviderState, now = Date.now()): AskedPause | null {
  const { asked } = state;
  return asked && Date.parse(asked.at) + asked.ms > now ? asked : null;
}

function settingsDigest(mail: MailConfig): string {
  if (mail.mode !== "relay") return "";
  const ids = [mail.apiUrl, mail.publicKey, mail.serviceId, mail.templateId, mail.privateKey ?? ""];
  return createHash("sha256").update(JSON.stringify(ids)).digest("hex").slice(0, 16);
}

/** The provider's words as one bounded line, anything like an address taken out. */
export function providerWords(text: string): string {
  const line = text
    .replace(/[^\s@]*@[^\s@]*/g, "[address]")
    .replace(/[\s\p{Cc}\p{Cf}]+/gu, " ")
    .trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

export function createProvider(mail: MailConfig, state: SharedState, now = () => new Date()): Provider {
  const RECORD = "provider";
  const settings = settingsDigest(mail);
  return {
    read: () => state.read<ProviderState>(RECORD, OK),
    refusing: (status, text, hint) =>
      state.change<ProviderState, boolean>(RECORD, OK, (was) => {
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
      state.change<ProviderState, boolean>(RECORD, OK, (was) =>
        was.state === "ok" && !was.asked
          ? { next: null, result: false }
          : { next: OK, result: was.state !== "ok" },
      ),
    probeDue: (probeSeconds, id) =>
      state.change<ProviderState, boolean>(RECORD, OK, (was) => {
        if (was.state !== "refusing") return { next: null, result: false };
        const at = now();
        const since = at.getTime() - Date.parse(was.lastProbe);
        // The same message again only once a second interval has passed without another to try.
        const interval = (id !== undefined && id === was.lastProbeId ? 2 : 1) * probeSeconds * 1_000;
        const due = was.settings !== settings || since >= interval;
        return due
          ? { next: { ...was, settings, lastProbe: at.toISOString(), lastProbeId: id }, result: true }
          : { next: null, result: false };
      }),
    refusedOne: (status, text, id) =>
      state.change<Refused, string | null>(REFUSED, { refusals: [] }, ({ refusals }) => {
        const at = now().getTime();
        const words = providerWords(text);
        const recent = refusals.filter((r) => at - r.at < REFUSAL_MEMORY_MS && r.id !== id);
        const twice = recent.some((r) => r.status === status && r.words === words);
        const next = { refusals: [...recent, { status, words, id, at }].slice(-REFUSALS_KEPT) };
        const hint = `EmailJS refused two different messages with ${status} "${words}": see what it says in the EmailJS dashboard`;
        return { next, result: twice ? hint : null };
      }),
    asked: (pauseMs) =>
      state.change<ProviderState, boolean>(RECORD, OK, (was) => {
        const at = now();
        const asked = { at: at.toISOString(), ms: pauseMs };
        return { next: { ...was, asked }, result: askedPause(was, at.getTime()) === null };
      }),
  };
}
