// The owner's commands on kept messages (CLI and page), sent at once even while the account is refused.
import { failureOf, keptView, waitingOn, type Message, type TemplateParams } from "../rules/message.server";
import type { OwnerPort, SendNow } from "./port.server";
import { attempt, type AttemptParts } from "./attempt.server";
import { providerWords } from "../rules/words.server";
import { fairOrder } from "../rules/rulebook.server";

export type Keeper = Pick<OwnerPort, "where" | "health" | "close"> & {
  list(): Promise<Message[]>;
  get(id: string): Promise<Message | null>;
  remove(id: string): Promise<boolean>;
  /** Out of the background's reach: null when it is gone, "busy" when another process sends it. */
  take(id: string): Promise<Message | null | "busy">;
  settle(taken: Message, next: Message | null): Promise<void>;
};

export function ownerCommands(keeper: Keeper, parts: AttemptParts | null): OwnerPort {
  const sending = () => {
    if (!parts) throw new Error("sending needs the EmailJS ids");
    return parts;
  };
  async function sendNow(id: string, held: boolean): Promise<SendNow | null> {
    const found = await keeper.get(id);
    if (!found || (found.state === "held") !== held) return null;
    const taken = await keeper.take(id);
    if (taken === null) return null;
    if (taken === "busy") return { sent: false, kept: keptView(found), busy: true };
    const now = Date.now();
    const ready: Message =
      taken.state === "waiting"
        ? taken
        : { ...taken, state: "waiting", for: "pace", since: now, nextAttempt: now };
    const { next } = await attempt(ready, "owner", sending());
    await keeper.settle(taken, next);
    return next ? { sent: false, kept: keptView(next) } : { sent: true };
  }

  return {
    where: keeper.where,
    health: keeper.health,
    close: keeper.close,
    list: async () => (await keeper.list()).map(keptView),
    get: async (id) => {
      const found = await keeper.get(id);
      return found && keptView(found);
    },
    remove: (id) => keeper.remove(id),
    release: (id) => sendNow(id, true),
    sendNow: (id) => sendNow(id, false),
    async resend(each) {
      for (const message of fairOrder((await keeper.list()).filter((m) => m.state !== "held"))) {
        const sent = await sendNow(message.id, false);
        if (sent) each(keptView(message), sent);
      }
    },
    test: (params: TemplateParams) => testMail(params, sending()),
  };
}

async function testMail(params: TemplateParams, parts: AttemptParts): Promise<SendNow> {
  const sent = await parts.relay.send(params, { who: "owner" });
  if (sent.ok && sent.refusalEnded) await parts.refusalEnded();
  if (sent.ok) return { sent: true };
  const now = new Date().toISOString();
  const providerText = sent.waiting ? null : providerWords(sent.text);
  const waitingFor = sent.waiting ?? waitingOn(failureOf(sent).reason, false).for;
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
}
