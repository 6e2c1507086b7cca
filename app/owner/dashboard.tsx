// /owner signed in: the relay's state, every kept message and its actions as plain forms (they work without
// JavaScript), a test message and the passkeys.
import type { Flash } from "./access.server";
import { Action } from "./action";
import { KeptMessage } from "./kept-message";
import { when } from "./look";
import { Notice } from "./notice";
import type { MessageView } from "./page.server";
import { Section } from "./section";
import { Shell } from "./shell";
import { StatusFacts } from "./status-facts";
import type { RelayStatus } from "./status.server";

type Passkey = { id: string; addedAt: string; lastUsedAt: string | null; current: boolean };

export function OwnerDashboard({
  flash,
  status,
  messages,
  passkeys,
}: {
  flash: Flash | null;
  status: RelayStatus;
  messages: MessageView[];
  passkeys: Passkey[];
}) {
  return (
    <Shell title="Owner" signedIn>
      {flash ? <Notice ok={flash.ok}>{flash.text}</Notice> : null}
      <Section title="The relay">
        <StatusFacts status={status} />
      </Section>
      <Section title="Kept messages">
        {messages.length === 0 ? (
          <p className="text-sm">None: no message waits, is held or was given up.</p>
        ) : (
          <ul className="flex flex-col gap-4">
            {messages.map((message) => (
              <KeptMessage key={message.id} message={message} />
            ))}
          </ul>
        )}
      </Section>
      <Section title="Test">
        <p className="text-sm text-muted-foreground">
          A test message to the owner&apos;s mailbox, tried once, as <code>outbox test</code>.
        </p>
        <Action intent="test" label="Send a test message" />
      </Section>
      <Section title="Passkeys">
        <ul className="flex flex-col gap-3">
          {passkeys.map((passkey) => (
            <li key={passkey.id} className="flex flex-wrap items-center justify-between gap-3 text-sm">
              <span className="wrap-anywhere">
                Added {when(passkey.addedAt)}
                {passkey.lastUsedAt ? `, last used ${when(passkey.lastUsedAt)}` : ""}
                {passkey.current ? " (this session)" : ""}
              </span>
              <Action intent="remove_passkey" id={passkey.id} label="Remove" />
            </li>
          ))}
        </ul>
        <p className="text-sm text-muted-foreground">
          Another device: run <code>node build/outbox.js owner-link</code> on the server and open its link
          there.
        </p>
      </Section>
    </Shell>
  );
}
