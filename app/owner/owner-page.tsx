// The owner's page: the relay's state, every kept message and its actions as plain forms (they work without
// JavaScript), the passkeys; and the sign-in and enrolment screens, whose ceremony alone needs JavaScript. It uses
// only classes the public page uses too: the one stylesheet stays the same bytes for visitors (decision 054).
import { useEffect, useState, type ReactNode } from "react";
import { ceremonyError, enrol, signIn } from "./ceremony.client";
import type { Flash } from "./access.server";
import type { MessageView } from "./page.server";
import type { RelayStatus } from "./status.server";

type Passkey = { id: string; addedAt: string; lastUsedAt: string | null; current: boolean };

/** UTC, to the minute, the same on the server and in the browser. */
/** The owner's own button look: importing the public page's would move its code into another chunk. */
const BUTTON =
  "inline-flex items-center justify-center rounded-md font-medium transition-colors focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2 focus-visible:ring-offset-background disabled:opacity-60";
const LOOK = {
  primary: `${BUTTON} h-10 px-4 text-sm bg-primary text-primary-foreground hover:bg-primary/90`,
  outline: `${BUTTON} h-10 px-3 text-sm border border-input bg-background hover:bg-accent hover:text-accent-foreground`,
};

const when = (time: string) => `${time.slice(0, 16).replace("T", " ")} UTC`;

function Shell({
  title,
  signedIn = false,
  children,
}: {
  title: string;
  signedIn?: boolean;
  children: ReactNode;
}) {
  return (
    <div className="flex min-h-screen flex-col items-center px-4 py-8">
      <div className="flex w-full max-w-3xl flex-col gap-6">
        <header className="flex flex-wrap items-center justify-between gap-3">
          <h1 className="text-xl font-bold tracking-tight sm:text-2xl">{title}</h1>
          <div className="flex items-center gap-3">
            <a href="/" className={LOOK.outline}>
              The public site
            </a>
            {signedIn ? <Action intent="sign_out" label="Sign out" /> : null}
          </div>
        </header>
        <main id="main" className="flex flex-col gap-6">
          {children}
        </main>
      </div>
    </div>
  );
}

function Notice({ ok, children }: { ok: boolean; children: ReactNode }) {
  return (
    <p
      role={ok ? "status" : "alert"}
      className={`rounded-md border px-4 py-3 text-sm wrap-anywhere ${ok ? "border-success/40" : "border-destructive"}`}
    >
      {children}
    </p>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = `section-${title.toLowerCase().replace(/\W+/g, "-")}`;
  return (
    <section
      aria-labelledby={id}
      className="flex flex-col gap-4 rounded-lg border border-border bg-card p-4 text-card-foreground sm:p-6"
    >
      <h2 id={id} className="text-lg font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** One action: a POST form with its one button. */
function Action({
  intent,
  id,
  label,
  variant = "outline",
  to = "/owner",
}: {
  intent: string;
  id?: string;
  label: string;
  variant?: "primary" | "outline";
  to?: string;
}) {
  return (
    <form method="post" action={to}>
      <input type="hidden" name="intent" value={intent} />
      {id ? <input type="hidden" name="id" value={id} /> : null}
      <button type="submit" className={LOOK[variant]}>
        {label}
      </button>
    </form>
  );
}

/** Runs a ceremony on a click; its refusal is said on the page. */
function CeremonyButton({ label, run }: { label: string; run: () => Promise<string> }) {
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Enabled once the page's script runs: before, a click would do nothing.
  const [ready, setReady] = useState(false);
  useEffect(() => setReady(true), []);
  const start = () => {
    setBusy(true);
    setProblem(null);
    run().then(
      (location) => window.location.assign(location),
      (error: unknown) => {
        setProblem(ceremonyError(error));
        setBusy(false);
      },
    );
  };
  return (
    <div className="flex flex-col items-start gap-3">
      <button type="button" className={LOOK.primary} onClick={start} disabled={!ready || busy}>
        {label}
      </button>
      <noscript>
        <p className="text-sm">
          A passkey needs JavaScript in this browser; every other action works without it.
        </p>
      </noscript>
      {problem ? <Notice ok={false}>{problem}</Notice> : null}
    </div>
  );
}

/** The same for every signed-out visitor: nothing says whether a passkey is registered (decision 058). */
export function SignInView({ notReady, refused }: { notReady: string | null; refused: string | null }) {
  return (
    <Shell title="Owner sign-in">
      {refused ? <Notice ok={false}>{refused}</Notice> : null}
      {notReady ? (
        <Notice ok={false}>Signing in is off on this server. {notReady}</Notice>
      ) : (
        <Section title="Sign in with a passkey">
          <p className="text-sm text-muted-foreground">
            Use a passkey registered on this device or a phone nearby. None yet? On the server, run{" "}
            <code>node build/outbox.js owner-link</code> and open the link it prints on this device.
          </p>
          <CeremonyButton label="Sign in with a passkey" run={signIn} />
        </Section>
      )}
    </Shell>
  );
}

export function EnrolView({ notReady }: { notReady: string | null }) {
  const [problem, setProblem] = useState<string | null>(null);
  // Kept for this page's life, so a refused try can be pressed again; out of the address bar and history.
  const [token, setToken] = useState("");
  useEffect(() => {
    setToken((kept) => kept || window.location.hash.slice(1));
    window.history.replaceState(null, "", window.location.pathname);
  }, []);
  const run = () => {
    if (!token) {
      setProblem("This page needs the whole link that `outbox owner-link` printed, with its part after #.");
      return Promise.reject(new Error("This link has no token."));
    }
    return enrol(token);
  };
  return (
    <Shell title="Register a passkey">
      {notReady ? (
        <Notice ok={false}>Registering is off on this server. {notReady}</Notice>
      ) : (
        <Section title="This device">
          <p className="text-sm text-muted-foreground">
            The link works once, for 15 minutes. The passkey it registers signs you in to the owner&apos;s
            page, with no password.
          </p>
          {problem ? <Notice ok={false}>{problem}</Notice> : null}
          <CeremonyButton label="Register a passkey on this device" run={run} />
        </Section>
      )}
    </Shell>
  );
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="grid gap-1">
      <dt className="text-sm font-medium text-muted-foreground">{term}</dt>
      <dd className="text-sm wrap-anywhere">{children}</dd>
    </div>
  );
}

function StatusFacts({ status }: { status: RelayStatus }) {
  const { provider, waiting, budget, lastAlert } = status;
  return (
    <dl className="flex flex-col gap-3">
      {status.redisRisks.map((risk) => (
        <Fact key={risk} term="Redis">
          {risk}: kept messages could be lost
        </Fact>
      ))}
      <Fact term="Provider">
        {!provider ? (
          "none: no EmailJS ids, messages are written to the outbox"
        ) : provider.state === "ok" ? (
          "ok"
        ) : (
          <>
            <strong className="font-semibold text-destructive">refusing</strong> since {when(provider.since)}:{" "}
            {provider.status} &ldquo;{provider.text}&rdquo;
            <br />
            Fix: {provider.hint}
          </>
        )}
      </Fact>
      {status.paused ? <Fact term="Paused">{status.paused}</Fact> : null}
      <Fact term="Waiting">
        {waiting
          ? `${waiting.count} message(s), oldest ${when(waiting.oldest)}, next attempt ${when(waiting.nextAttempt)}`
          : "none"}
      </Fact>
      {status.givenUp > 0 ? (
        <Fact term="Given up">{status.givenUp} message(s): send or delete them</Fact>
      ) : null}
      <Fact term="Held as spam">
        {status.held.count} message(s), {status.held.lastDay} in the last 24 h
      </Fact>
      {budget ? (
        <>
          <Fact term="Sent today">
            {budget.day.used} of {budget.day.limit} ({budget.day.limit - budget.day.used} left, turns{" "}
            {when(budget.day.turnsAt)})
          </Fact>
          <Fact term="This month">
            {budget.month.used} of {budget.month.limit} ({budget.month.limit - budget.month.used} left, turns{" "}
            {when(budget.month.turnsAt)})
          </Fact>
        </>
      ) : null}
      <Fact term="Last alert">
        {lastAlert
          ? `${lastAlert.kind} at ${when(lastAlert.at)}, ${lastAlert.delivered ? "delivered" : "not delivered"}`
          : "none"}
        {status.alertsSet ? "" : " (OWNER_ALERT_URL is not set)"}
      </Fact>
    </dl>
  );
}

function Message({ message }: { message: MessageView }) {
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

export function OwnerDashboard({
  flash,
  status,
  messages,
  skipped,
  passkeys,
}: {
  flash: Flash | null;
  status: RelayStatus;
  messages: MessageView[];
  skipped: string[];
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
              <Message key={message.id} message={message} />
            ))}
          </ul>
        )}
        {skipped.map((line) => (
          <p key={line} className="text-sm wrap-anywhere text-destructive">
            Could not read {line}
          </p>
        ))}
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
