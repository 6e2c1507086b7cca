// The folder engine, for one process without REDIS_URL: messages kept as files in undelivered/ and spam/, sent
// again by the redelivery loop; the owner's commands through the same port as the queue's (decision 053).
import { rm } from "node:fs/promises";
import path from "node:path";
import type { AppConfig } from "~/config.server";
import { createDelivery, failedByProvider, failingSeconds, nextAttemptAt, OWNER } from "./delivery.server";
import type { ContactLogger } from "./events.server";
import type { Notify } from "./housekeeping.server";
import type { Quotas } from "./limits.server";
import type { Kept, KeptState, WaitingFor } from "./message-state";
import { providerWords } from "./provider.server";
import type { Engine, OwnerPort, SendNow } from "./queue.server";
import { sendKept, startRedelivery } from "./redelivery.server";
import type { Relay } from "./relay.server";
import type { SharedState } from "./shared-state.server";
import {
  listUndelivered,
  mayHaveArrived,
  readUndelivered,
  setAside,
  whileResending,
  type UndeliveredEntry,
} from "./store.server";

function keptState(entry: UndeliveredEntry, spam: boolean): KeptState {
  if (spam) return { state: "held", for: "suspected_spam" };
  if (entry.for === "suspected_spam" || entry.for === "refused_by_provider")
    return { state: "held", for: entry.for };
  // An attempt that ran when the process stopped may have arrived.
  const waitingFor = entry.for === "provider" && mayHaveArrived(entry) ? "uncertain" : entry.for;
  return entry.gaveUp ? { state: "given_up", for: waitingFor } : { state: "waiting", for: waitingFor };
}

/** Its file's name, as `list` prints it; a name with a folder in it is no id. */
const fileOf = (dir: string, id: string) =>
  path.basename(id) === id && id !== "" && !id.startsWith(".") ? path.join(dir, `${id}.json`) : null;

type FolderEngineOptions = {
  config: AppConfig;
  relay: Relay | null;
  notify: Notify;
  state: SharedState;
  quotas: Quotas;
  log: ContactLogger;
};

export function createFolderEngine({
  config,
  relay,
  notify,
  state,
  quotas,
  log,
}: FolderEngineOptions): Engine {
  const { undeliveredDir, spamDir } = config.mail;
  const settings = config.redelivery;
  const ownerDelivery = createDelivery(config.mail, log, relay, quotas, "owner");

  function kept(file: string, entry: UndeliveredEntry, spam: boolean): Kept {
    const now = Date.now();
    const inState = keptState(entry, spam);
    const failing = inState.state === "waiting" && failedByProvider(entry);
    return {
      ...inState,
      id: path.basename(file, ".json"),
      params: entry.template_params,
      receivedAt: entry.time,
      // The give-up clock for a failing message, the retention clock for a held or given-up one (decision 052).
      since: failing
        ? new Date(now - failingSeconds(entry, settings, now) * 1_000).toISOString()
        : (entry.gaveUpAt ?? entry.time),
      attempts: entry.attempts ?? 0,
      nextAttempt:
        inState.state === "waiting" ? new Date(nextAttemptAt(entry, settings)).toISOString() : null,
      uncertain: mayHaveArrived(entry),
      ...(entry.providerText ? { providerText: entry.providerText } : {}),
      ...(entry.signals ? { signals: entry.signals } : {}),
    };
  }

  async function read(dir: string, id: string) {
    const file = fileOf(dir, id);
    const entry = file ? await readUndelivered(file) : null;
    return file && entry && !("problem" in entry) ? { file, entry } : null;
  }

  const find = async (id: string) => {
    const spam = await read(spamDir, id);
    if (spam) return kept(spam.file, spam.entry, true);
    const waiting = await read(undeliveredDir, id);
    return waiting && kept(waiting.file, waiting.entry, false);
  };

  /** Sends one kept message now, under the folder's resend turn. */
  async function sendOne(file: string, entry: UndeliveredEntry, sender: Relay): Promise<SendNow> {
    const sent = await sendKept(file, entry, sender, { who: "owner", settings });
    if (sent.ok) return { sent: true };
    const after = await readUndelivered(file);
    return { sent: false, kept: "problem" in after ? null : kept(file, after, false) };
  }

  /** A message in undelivered/ sent now: a held one only when released, a waiting one only when not. */
  async function sendKeptNow(id: string, which: "held" | "not held"): Promise<SendNow | null> {
    if (!relay) return null;
    const outcome = await whileResending(
      undeliveredDir,
      async ({ messages }) => {
        const found = messages.find(({ file }) => path.basename(file, ".json") === id);
        if (!found || setAside(found.entry) !== (which === "held")) return null;
        return sendOne(found.file, found.entry, relay);
      },
      { wait: true },
    );
    return outcome ?? null;
  }

  const owner: OwnerPort = {
    engine: "folder",
    where: path.dirname(undeliveredDir),
    async list() {
      const messages: Kept[] = [];
      const skipped: { id: string; problem: string }[] = [];
      for (const [dir, spam] of [
        [undeliveredDir, false],
        [spamDir, true],
      ] as const) {
        const listed = await listUndelivered(dir);
        messages.push(...listed.messages.map(({ file, entry }) => kept(file, entry, spam)));
        skipped.push(...listed.skipped.map(({ file, problem }) => ({ id: path.basename(file), problem })));
      }
      return { messages: messages.sort((a, b) => a.receivedAt.localeCompare(b.receivedAt)), skipped };
    },
    get: find,
    async remove(id) {
      const found = (await read(spamDir, id)) ?? (await read(undeliveredDir, id));
      if (!found) return false;
      await rm(found.file, { force: true });
      return true;
    },
    async release(id) {
      const outcome = await whileResending(
        spamDir,
        async (): Promise<SendNow | null> => {
          const held = await read(spamDir, id);
          if (!held) return null;
          const result = await ownerDelivery.send(held.entry.template_params, OWNER);
          // Sent, or kept in undelivered/ to be sent again: no longer held either way.
          if (result.ok || result.reason !== "not_kept") await rm(held.file, { force: true });
          if (result.ok && !result.waiting) return { sent: true };
          return { sent: false, kept: await find(id) };
        },
        { wait: true },
      );
      return outcome ?? (await sendKeptNow(id, "held"));
    },
    sendNow: (id) => sendKeptNow(id, "not held"),
    async resend(each) {
      if (!relay) return null;
      return whileResending(undeliveredDir, async ({ messages, skipped }) => {
        for (const { file } of messages) {
          // Read again just before sending: a visitor's re-post or the server may have sent it meanwhile.
          const entry = await readUndelivered(file);
          if ("problem" in entry || setAside(entry)) continue;
          each(kept(file, entry, false), await sendOne(file, entry, relay));
        }
        return { skipped: skipped.map(({ file, problem }) => ({ id: path.basename(file), problem })) };
      });
    },
    async test(params) {
      if (!relay) throw new Error("the test needs the EmailJS ids");
      const sent = await relay.send(params, { who: "owner" });
      if (sent.ok) return { sent: true };
      const now = new Date().toISOString();
      const waitingFor: WaitingFor = sent.waiting ?? (sent.hint ? "account" : "provider");
      const providerText = sent.waiting ? sent.waiting.replaceAll("_", " ") : providerWords(sent.text);
      return {
        sent: false,
        kept: {
          state: "waiting",
          for: waitingFor,
          id: "test",
          params,
          receivedAt: now,
          since: now,
          attempts: 1,
          nextAttempt: null,
          uncertain: false,
          ...(providerText ? { providerText } : {}),
        },
      };
    },
    close: async () => {},
  };

  return {
    delivery: createDelivery(config.mail, log, relay, quotas),
    owner,
    start: () =>
      relay ? startRedelivery({ config, relay, notify, state, quotas }) : { stop: async () => {} },
  };
}
