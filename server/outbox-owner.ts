// What `outbox status` and `outbox test` tell the owner: the relay's state on one screen, and one test mail.
import type { AppConfig } from "~/config.server";
import { site } from "~/content/site";
import { readAlertLedger } from "~/contact/housekeeping.server";
import { providerWords } from "~/contact/provider.server";
import { nextAttemptAt } from "~/contact/delivery.server";
import type { Relay } from "~/contact/relay.server";
import { listUndelivered } from "~/contact/store.server";

const hoursAgo = (time: string) => `${Math.floor((Date.now() - Date.parse(time)) / 3_600_000)} h ago`;

/** Prints the relay's state; 1 when it needs the owner (the provider refusing, a message waiting too long). */
export async function printStatus(config: AppConfig, relay: Relay | null): Promise<number> {
  let attention = false;
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
  }

  const { messages } = await listUndelivered(config.mail.undeliveredDir);
  const waiting = messages.filter(({ entry }) => !entry.gaveUp);
  const oldest = waiting[0]?.entry;
  if (!oldest) console.log("waiting     none");
  else {
    const next = Math.min(...waiting.map(({ entry }) => nextAttemptAt(entry, config.redelivery)));
    attention ||= Date.now() - Date.parse(oldest.time) > config.waitingAlertMinutes * 60_000;
    console.log(
      `waiting     ${waiting.length} message(s), oldest ${oldest.time} (${hoursAgo(oldest.time)}), next attempt ${new Date(Math.max(next, Date.now())).toISOString()}`,
    );
  }
  const gaveUp = messages.length - waiting.length;
  if (gaveUp > 0) console.log(`given up    ${gaveUp} message(s): resend or delete them`);

  const spam = (await listUndelivered(config.mail.spamDir)).messages;
  const recent = spam.filter(({ entry }) => Date.now() - Date.parse(entry.time) <= 86_400_000).length;
  console.log(`spam held   ${spam.length} message(s), ${recent} in the last 24 h`);

  if (relay) {
    const { day, month } = await relay.budget.usage();
    console.log(
      `sent today  ${day.used} of ${day.limit} (${day.limit - day.used} left, turns ${day.turnsAt.toISOString()})`,
    );
    console.log(
      `this month  ${month.used} of ${month.limit} (${month.limit - month.used} left, turns ${month.turnsAt.toISOString()})`,
    );
  }

  const { last } = await readAlertLedger(config);
  const channel = config.alerts ? "" : " (OWNER_ALERT_URL is not set)";
  console.log(
    last
      ? `last alert  ${last.kind} at ${last.at}, ${last.delivered ? "delivered" : "not delivered"}${channel}`
      : `last alert  none${channel}`,
  );
  return attention ? 1 : 0;
}

export async function sendTest(relay: Relay): Promise<number> {
  const sent = await relay.send(
    {
      name: "Portfolio relay test",
      from_email: site.contact.email,
      subject: "Test message from outbox test",
      message: `A test of the contact form's relay, sent by \`outbox test\` at ${new Date().toISOString()}.`,
      to_name: site.name,
    },
    { who: "owner" },
  );
  if (sent.ok) {
    console.log(`sent: the provider answered ${sent.status}; check the owner's mailbox`);
    return 0;
  }
  if (sent.held) {
    console.log(`not sent: ${sent.held.replaceAll("_", " ")}`);
    return 1;
  }
  console.log(
    `not sent: the provider answered ${sent.status || "nothing"} "${providerWords(sent.text)}" (${sent.failure})`,
  );
  if (sent.hint) console.log(`fix: ${sent.hint}`);
  return 1;
}
