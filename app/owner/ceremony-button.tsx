// The button that runs a passkey ceremony: the one part of the owner's screens that needs JavaScript.
import { useEffect, useState } from "react";
import { ceremonyError } from "./ceremony.client";
import { LOOK } from "./look";
import { Notice } from "./notice";

/** Runs a ceremony on a click; its refusal is said on the page. */
export function CeremonyButton({ label, run }: { label: string; run: () => Promise<string> }) {
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
