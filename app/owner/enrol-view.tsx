// /owner/enrol#TOKEN: registers a passkey on this device with the one-time link `outbox owner-link` printed.
import { useEffect, useState } from "react";
import { CeremonyButton } from "./ceremony-button";
import { enrol } from "./ceremony.client";
import { Notice } from "./notice";
import { Section } from "./section";
import { Shell } from "./shell";

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
