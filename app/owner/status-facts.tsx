// The relay's state on the owner's page, as the facts `outbox status` prints (status.server.ts).
import type { ReactNode } from "react";
import { when } from "./look";
import type { RelayStatus } from "./status.server";

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="grid gap-1">
      <dt className="text-sm font-medium text-muted-foreground">{term}</dt>
      <dd className="text-sm wrap-anywhere">{children}</dd>
    </div>
  );
}

export function StatusFacts({ status }: { status: RelayStatus }) {
  const { provider, waiting, budget, lastAlert } = status;
  return (
    <dl className="flex flex-col gap-3">
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
      {status.store ? (
        <Fact term="Store">
          <strong className="font-semibold text-destructive">refusing writes</strong> since{" "}
          {when(status.store.since)}: {status.store.cause}; nothing is sent until it takes them again
        </Fact>
      ) : null}
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
