// The owner's commands on kept messages, through the engine's port: the same words on the folder and the
// queue, from any instance (decision 053).
import { describeState, type Kept, type OwnerPort } from "~/contact/index.server";
import { visible } from "~/lib/visible";

function describe(kept: Kept): string {
  const { name, from_email, subject } = kept.params;
  const doubt = kept.uncertain ? ", uncertain: may have been delivered" : "";
  const signals = kept.signals ? `: ${visible(kept.signals.join(", "))}` : "";
  const words = kept.providerText ? `, EmailJS said "${visible(kept.providerText)}"` : "";
  const next = kept.nextAttempt ? `, next attempt ${kept.nextAttempt}` : "";
  return `${kept.receivedAt}  ${visible(name)} <${visible(from_email)}>  "${visible(subject)}"  (${describeState(kept)}${doubt}${words}${signals}${next}, ${kept.attempts} attempt(s))  ${kept.id}`;
}

const isSpam = (kept: Kept) => kept.state === "held" && kept.for === "suspected_spam";

/** An id as `list` prints it (a file name from an older listing is taken too); never a path. */
function idOf(name: string | undefined, listing: string): string | null {
  if (name && !/[/\\]/.test(name)) return name.replace(/\.json$/, "");
  console.error(
    name ? `${name}: give an id from \`${listing}\`, without a folder` : `give an id from \`${listing}\``,
  );
  return null;
}

/** list, resend, export ID, spam list|release ID|delete ID; null for anything else (the usage). */
export async function messageCommand(
  owner: OwnerPort,
  command: string,
  rest: string[],
): Promise<number | null> {
  if (command === "list" || (command === "spam" && rest[0] === "list")) {
    const spam = command === "spam";
    const messages = await owner.list();
    const shown = messages.filter((kept) => isSpam(kept) === spam);
    for (const kept of shown) console.log(describe(kept));
    console.log(`${shown.length} ${spam ? "suspected spam" : "undelivered"} message(s) in ${owner.where}`);
    return 0;
  }
  if (command === "resend") {
    let sent = 0;
    let kept = 0;
    let busy = 0;
    await owner.resend((message, outcome) => {
      const word = outcome.sent ? "sent" : outcome.busy ? "busy" : "kept";
      if (outcome.sent) sent += 1;
      else if (outcome.busy) busy += 1;
      else kept += 1;
      const now = !outcome.sent && outcome.kept ? outcome.kept : message;
      console.log(`${word}  ${describe(now)}`);
    });
    // Held by another sender: sent by it, or taken again by itself at its next attempt.
    const others = busy ? `, ${busy} held by another sender until its next attempt` : "";
    console.log(`${sent} sent, ${kept} still undelivered${others} in ${owner.where}`);
    return kept > 0 ? 1 : 0;
  }
  if (command === "export") {
    const id = idOf(rest[0], "list");
    if (!id) return 2;
    const kept = await owner.get(id);
    if (!kept) {
      console.error(`${rest[0]}: no such kept message in ${owner.where}`);
      return 1;
    }
    console.log(JSON.stringify(kept, null, 2));
    return 0;
  }
  const [action, name] = rest;
  if (command !== "spam" || (action !== "release" && action !== "delete")) return null;
  const id = idOf(name, "spam list");
  if (!id) return 2;
  const kept = await owner.get(id);
  if (!kept || kept.state !== "held") {
    console.error(`${name}: no such held message in ${owner.where}`);
    return 1;
  }
  if (action === "delete") {
    await owner.remove(id);
    console.log(`deleted  ${describe(kept)}`);
    return 0;
  }
  const sent = await owner.release(id);
  if (!sent) {
    console.error(`${name}: released meanwhile by another command`);
    return 1;
  }
  if (sent.sent) console.log(`released  ${describe(kept)}`);
  else console.log(`released, waiting in ${owner.where}  ${describe(sent.kept ?? kept)}`);
  return sent.sent ? 0 : 1;
}
