// /owner signed out: sign in with a passkey.
import { CeremonyButton } from "./ceremony-button";
import { signIn } from "./ceremony.client";
import { Notice } from "./notice";
import { Section } from "./section";
import { Shell } from "./shell";

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
