// One kept message on the owner's page: its state, sender, text and what the owner may do with it.
import { Action } from "./action";
import { when } from "./look";
import type { MessageView } from "./page.server";

export function KeptMessage({ message }: { message: MessageView }) {
  const headingId = `message-${message.id}`;
  return (
    <li>
      <article
        aria-labelledby={headingId}
        className="flex flex-col gap-3 rounded-md border border-border p-4"
      >
        <p className="text-xs font-semibold tracking-wider text-muted-foreground uppercase">
          {message.stateText}
        </p>
        <h3 id={headingId} className="text-base font-semibold wrap-anywhere">
          {message.subject || "(no subject)"}
        </h3>
        <p className="text-sm wrap-anywhere">
          From {message.name} &lt;{message.email}&gt;, received {when(message.receivedAt)}
          {message.nextAttempt ? `, next attempt ${when(message.nextAttempt)}` : ""}, {message.attempts}{" "}
          attempt(s)
        </p>
        {message.notes.length ? (
          <ul className="text-sm text-muted-foreground">
            {message.notes.map((note) => (
              <li key={note} className="wrap-anywhere">
                {note}
              </li>
            ))}
          </ul>
        ) : null}
        <div className="rounded-md bg-muted/40 p-4 text-sm wrap-anywhere">
          {message.lines.map((line, index) => (
            <span key={index} className="block">
              {line || "\u00a0"}
            </span>
          ))}
        </div>
        <div className="flex flex-wrap gap-2">
          {message.state === "held" ? (
            <Action intent="release" id={message.id} label="Release" variant="primary" />
          ) : (
            <Action intent="send" id={message.id} label="Send now" variant="primary" />
          )}
          <Action intent="delete" id={message.id} label="Delete" />
          <Action intent="export" id={message.id} label="Export as JSON" to="/owner/export" />
        </div>
        <p className="text-xs text-muted-foreground">Id {message.id}</p>
      </article>
    </li>
  );
}
