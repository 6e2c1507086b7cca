// What `outbox status` and `outbox test` tell the owner: the relay's state on one screen, and one test mail.
import {
  askedPause,
  askedPauseWords,
  describeState,
  type OwnerPort,
  type Relay,
} from "~/contact/index.server";
import { relayStatus, testMessage } from "~/owner/status.server";

const hoursAgo = (time: string) => `${Math.floor((Date.now() - Date.parse(time)) / 3_600_000)} h ago`;

/** Prints the relay's state; 1 when it needs the owner (the provider refusing, a message waiting too long). */
export async function printStatus(...args: Parameters<typeof relayStatus>): Promise<number> {
  const status = await relayStatus(...args);
  const { provider } = status;
  if (!provider) console.log("provider    none: no EmailJS ids, messages are written to the outbox");
  else if (provider.state === "ok") console.log("provider    ok");
  else {
    console.log(
      `provider    refusing since ${provider.since} (${hoursAgo(provider.since)}): ${provider.status} "${provider.text}"`,
    );
    console.log(`            fix: ${provider.hint}`);
  }
  if (status.store)
    console.log(
      `store       refusing writes since ${status.store.since}: ${status.store.cause}; nothing is sent until it takes them again`,
    );
  if (status.paused) console.log(`paused      ${status.paused}`);

  const { waiting } = status;
  if (!waiting) console.log("waiting     none");
  else
    console.log(
      `waiting     ${waiting.count} message(s), oldest ${waiting.oldest} (${hoursAgo(waiting.oldest)}), next attempt ${waiting.nextAttempt}`,
    );
  if (status.givenUp > 0) console.log(`given up    ${status.givenUp} message(s): resend or delete them`);
  console.log(`spam held   ${status.held.count} message(s), ${status.held.lastDay} in the last 24 h`);

  if (status.budget) {
    const { day, month } = status.budget;
    console.log(
      `sent today  ${day.used} of ${day.limit} (${day.limit - day.used} left, turns ${day.turnsAt})`,
    );
    console.log(
      `this month  ${month.used} of ${month.limit} (${month.limit - month.used} left, turns ${month.turnsAt})`,
    );
  }

  const { lastAlert: last } = status;
  const channel = status.alertsSet ? "" : " (OWNER_ALERT_URL is not set)";
  console.log(
    last
      ? `last alert  ${last.kind} at ${last.at}, ${last.delivered ? "delivered" : "not delivered"}${channel}`
      : `last alert  none${channel}`,
  );
  return status.attention ? 1 : 0;
}

/** The test message through the engine, tried once: sent, or what stopped it. */
export async function ownerTest(owner: OwnerPort, relay: Relay): Promise<number> {
  const sent = await owner.test(testMessage());
  if (sent.sent) {
    console.log("sent: EmailJS took it; check the owner's mailbox");
    return 0;
  }
  const kept = sent.kept;
  const words = kept?.providerText ? `, EmailJS said "${kept.providerText}"` : "";
  const provider = await relay.provider.read();
  const asked = askedPause(provider);
  console.log(
    `not sent${kept ? ` (${describeState(kept)}${words})` : ""}${asked ? `; ${askedPauseWords(asked)}` : ""}. Try again later.`,
  );
  if (provider.state === "refusing") console.log(`fix: ${provider.hint}`);
  return 1;
}
