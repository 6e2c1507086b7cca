// The owner's commands on the queue (REDIS_URL): the same words as on the folder, from any instance (decision 053).
import { describeState, type Kept } from "~/contact/message-state";
import type { OwnerPort } from "~/contact/queue.server";
import { visible } from "./visible";

const USAGE_ID = "give an id from `list` or `spam list`";

function describe(kept: Kept): string {
  const { name, from_email, subject } = kept.params;
  const doubt = kept.uncertain ? ", uncertain: may have been delivered" : "";
  const signals = kept.signals ? `: ${visible(kept.signals.join(", "))}` : "";
  const words = kept.providerText ? `, EmailJS said "${visible(kept.providerText)}"` : "";
  const next = kept.nextAttempt ? `, next attempt ${kept.nextAttempt}` : "";
  return `${kept.receivedAt}  ${visible(name)} <${visible(from_email)}>  "${visible(subject)}"  (${describeState(kept)}${doubt}${words}${signals}${next}, ${kept.attempts} attempt(s))  ${kept.id}`;
}

/** An id as `list` prints it; a file name from the folder's listings is taken too. */
const idOf = (name: string | undefined) => name?.replace(/\.json$/, "");

export async function queueCommand(
  owner: OwnerPort,
  command: string,
  rest: string[],
): Promise<number | null> {
  // What each command needs: a listing, or the one message named.
  const listed = async () => {
    const { messages, skipped } = await owner.list();
    for (const { id, problem } of skipped) console.error(`skipped  ${id}: ${problem}`);
    const held = messages.filter((kept) => kept.state === "held");
    return { waiting: messages.filter((kept) => kept.state !== "held"), held, skipped };
  };
  if (command === "list") {
    const { waiting, skipped } = await listed();
    for (const kept of waiting) console.log(describe(kept));
    console.log(`${waiting.length} undelivered message(s) in the queue`);
    return skipped.length ? 1 : 0;
  }
  if (command === "resend") {
    const { waiting } = await listed();
    let kept = 0;
    for (const message of waiting) {
      const sent = await owner.sendNow(message.id);
      if (sent?.sent) console.log(`sent  ${describe(message)}`);
      else {
        kept += 1;
        console.log(`kept  ${describe(sent && !sent.sent && sent.kept ? sent.kept : message)}`);
      }
    }
    console.log(`${waiting.length - kept} sent, ${kept} still undelivered in the queue`);
    return kept ? 1 : 0;
  }
  if (command === "export") {
    const kept = rest[0] ? await owner.get(idOf(rest[0])!) : null;
    if (!kept) {
      console.error(rest[0] ? `${rest[0]}: no such kept message in the queue` : USAGE_ID);
      return rest[0] ? 1 : 2;
    }
    console.log(JSON.stringify(kept, null, 2));
    return 0;
  }
  if (command !== "spam") return null;
  const [action, name] = rest;
  if (action === "list") {
    const { held } = await listed();
    for (const kept of held) console.log(describe(kept));
    console.log(`${held.length} suspected spam message(s) in the queue`);
    return 0;
  }
  if ((action !== "release" && action !== "delete") || !name) return null;
  const id = idOf(name)!;
  const kept = await owner.get(id);
  if (kept?.state !== "held") {
    console.error(`${name}: no such held message (${USAGE_ID})`);
    return 1;
  }
  if (action === "delete") {
    await owner.remove(id);
    console.log(`deleted  ${describe(kept)}`);
    return 0;
  }
  const sent = await owner.release(id);
  if (sent?.sent) console.log(`released  ${describe(kept)}`);
  else
    console.log(
      `released, waiting in the queue  ${describe(sent && !sent.sent && sent.kept ? sent.kept : kept)}`,
    );
  return sent?.sent ? 0 : 1;
}
