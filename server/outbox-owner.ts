// What `outbox status` and `outbox test` tell the owner: the relay's state on one screen, and one test mail.
import type { AppConfig } from "~/config.server";
import { site } from "~/content/site";
import { askedPauseWords } from "~/contact/alerts.server";
import { readAlertLedger } from "~/contact/housekeeping.server";
import { describeState, type Kept } from "~/contact/message-state";
import type { OwnerPort } from "~/contact/queue.server";
import type { SharedState } from "~/contact/shared-state.server";
import { askedPause } from "~/contact/provider.server";
import type { Relay } from "~/contact/relay.server";

const hoursAgo = (time: string) => `${Math.floor((Date.now() - Date.parse(time)) / 3_600_000)} h ago`;

/** Prints the relay's state; 1 when it needs the owner (the provider refusing, a message waiting too long). */
export async function printStatus(
  config: AppConfig,
  relay: Relay | null,
  state: SharedState,
  owner: OwnerPort,
  redisRisks: string[] = [],
): Promise<number> {
  let attention = redisRisks.length > 0;
  for (const risk of redisRisks) console.log(`redis       ${risk}: kept messages could be lost`);
  if (!relay) console.log("provider    none: no EmailJS ids, messages are written to the outbox");
  else {
    const state = await relay.provider.read();
    if (state.state === "ok") console.log("provider    ok");
    else {
      attention = true;
      console.log(
        `provider    refusing since ${state.since} (${hoursAgo(state.since)}): ${state.status} "${state.text}"`,
      );
      console.log(`            fix: ${state.hint}`);
    }
    const asked = askedPause(state);
    if (asked) console.log(`paused      ${askedPauseWords(asked)}`);
  }

  const kept = await summary(owner);
  const oldest = kept.waiting[0];
  if (!oldest) console.log("waiting     none");
  else {
    const next = Math.min(...kept.waiting.map(({ nextAttempt }) => nextAttempt));
    // As the owner's alert: only the provider's failures need you, not a wait for the budget or the pace.
    attention ||= Math.max(0, ...kept.failingSeconds) > config.waitingAlertMinutes * 60;
    console.log(
      `waiting     ${kept.waiting.length} message(s), oldest ${oldest.receivedAt} (${hoursAgo(oldest.receivedAt)}), next attempt ${new Date(Math.max(next, Date.now())).toISOString()}`,
    );
  }
  if (kept.givenUp > 0) console.log(`given up    ${kept.givenUp} message(s): resend or delete them`);

  const recent = kept.held.filter((since) => Date.now() - Date.parse(since) <= 86_400_000).length;
  console.log(`spam held   ${kept.held.length} message(s), ${recent} in the last 24 h`);

  if (relay) {
    const { day, month } = await relay.budget.usage();
    console.log(
      `sent today  ${day.used} of ${day.limit} (${day.limit - day.used} left, turns ${day.turnsAt.toISOString()})`,
    );
    console.log(
      `this month  ${month.used} of ${month.limit} (${month.limit - month.used} left, turns ${month.turnsAt.toISOString()})`,
    );
  }

  const { last } = await readAlertLedger(state);
  const channel = config.alerts ? "" : " (OWNER_ALERT_URL is not set)";
  console.log(
    last
      ? `last alert  ${last.kind} at ${last.at}, ${last.delivered ? "delivered" : "not delivered"}${channel}`
      : `last alert  none${channel}`,
  );
  return attention ? 1 : 0;
}

type Summary = {
  waiting: { receivedAt: string; nextAttempt: number }[];
  /** How long each message waiting on the provider's failures has failed, by the give-up clock. */
  failingSeconds: number[];
  givenUp: number;
  held: string[];
};

async function summary(owner: OwnerPort): Promise<Summary> {
  const { messages } = await owner.list();
  const is = (state: Kept["state"]) => messages.filter((kept) => kept.state === state);
  return {
    waiting: is("waiting").map(({ receivedAt, nextAttempt }) => ({
      receivedAt,
      nextAttempt: nextAttempt ? Date.parse(nextAttempt) : Date.now(),
    })),
    failingSeconds: is("waiting")
      .filter((kept) => kept.for === "provider" || kept.for === "uncertain")
      .map(({ since }) => (Date.now() - Date.parse(since)) / 1_000),
    givenUp: is("given_up").length,
    held: is("held")
      .filter((kept) => kept.for === "suspected_spam")
      .map(({ since }) => since),
  };
}

export const testMessage = () => ({
  name: "Portfolio relay test",
  from_email: site.contact.email,
  subject: "Test message from outbox test",
  message: `A test of the contact form's relay, sent by \`outbox test\` at ${new Date().toISOString()}.`,
  to_name: site.name,
});

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
