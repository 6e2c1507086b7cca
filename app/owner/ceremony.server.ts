// The passkey ceremonies (WebAuthn by @simplewebauthn/server): each start's challenge is held by the browser that
// asked, in a short-lived signed cookie, so no other client can push it out; the server keeps nothing per start
// and takes a verified answer's challenge once (decision 058).
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { isoBase64URL } from "@simplewebauthn/server/helpers";
import { RateLimiterRes } from "rate-limiter-flexible";
import type { AppConfig } from "~/config.server";
import type { RateLimiters } from "~/contact/index.server";
import {
  LINK_TRIES,
  ownerCookie,
  ownerLog,
  whyNotReady,
  whyNotReadyFor,
  type OwnerAccess,
  type Refused,
} from "./access.server";

const CHALLENGE_MINUTES = 5;
/** Sign-in starts per client and minute: each is a random challenge and a signature, nothing kept. */
const STARTS = { max: 20, windowSeconds: 60 };

type Purpose = "enrol" | "sign_in";
/** What the challenge cookie holds: the challenge, its ceremony, the link it enrols with, when it ends. */
type Pending = { challenge: string; purpose: Purpose; link: string | null; expires: number };

/** A finished ceremony's session cookie; every answer to a finish also clears the challenge (`clear`). */
export type Finished = { ok: true; cookie: string } | Refused;

const LINK_REFUSED = {
  unknown:
    "This link cannot be used: it was used already, has expired or is wrong. Run `outbox owner-link` for a new one.",
  used: "This link cannot be used: it registered a passkey already. Run `outbox owner-link` for a new one.",
  closed: `This link cannot be used: it was closed after ${LINK_TRIES} wrong tries from somewhere (someone may be guessing). Run \`outbox owner-link\` for a new one.`,
};
const EXPIRED: Record<Purpose, string> = {
  enrol:
    "The registration request expired or another one replaced it: press the button again (the link still works for its 15 minutes).",
  sign_in: "The sign-in request expired or another one replaced it: press the button again.",
};
const NOT_THE_OWNERS = "This passkey is not one of the owner's, or the sign-in took too long. Try again.";

const challengeOf = (response: { response: { clientDataJSON: string } }) => {
  try {
    const data = JSON.parse(isoBase64URL.toUTF8String(response.response.clientDataJSON)) as {
      challenge?: unknown;
    };
    return typeof data.challenge === "string" ? data.challenge : null;
  } catch {
    return null;
  }
};

export function createCeremonies(config: AppConfig, access: OwnerAccess, limiter: RateLimiters["limiter"]) {
  const site = config.siteUrl ? new URL(config.siteUrl) : null;
  const cookie = ownerCookie(config, "owner_challenge", CHALLENGE_MINUTES * 60);
  const starts = limiter(STARTS, "owner-sign-in-start");
  const refuse = (step: string, status: number, reason: string, error: string): Refused => {
    ownerLog(step, "refused", reason);
    return { ok: false, status, error };
  };
  const ready = (step: Purpose, request: Request): Refused | null => {
    const why = whyNotReady(config) ?? whyNotReadyFor(config, request);
    return why ? refuse(step, 503, "not_ready", why) : null;
  };
  const hold = (challenge: string, purpose: Purpose, link: string | null) =>
    cookie.serialize({ challenge, purpose, link, expires: Date.now() + CHALLENGE_MINUTES * 60_000 });

  /** This browser's pending challenge for `purpose`, if it is the one `response` answers and still live. */
  async function pending(
    request: Request,
    purpose: Purpose,
    response: { response: { clientDataJSON: string } },
  ) {
    const held = (await cookie.parse(request.headers.get("Cookie"))) as Pending | null;
    const answered = challengeOf(response);
    const live = held && held.purpose === purpose && held.expires > Date.now();
    return live && typeof held.challenge === "string" && held.challenge === answered ? held : null;
  }

  return {
    /** The Set-Cookie that ends this browser's pending challenge, for every answer to a finish. */
    clear: () => cookie.serialize("", { maxAge: 0 }),

    async enrolOptions(token: string, request: Request) {
      const refused = ready("enrol", request);
      if (refused) return refused;
      const link = await access.checkLink(token);
      if (!link.open) return refuse("enrol", 403, `link_${link.why}`, LINK_REFUSED[link.why]);
      const options = await generateRegistrationOptions({
        rpName: `${site!.hostname} owner`,
        rpID: site!.hostname,
        userName: "owner",
        userDisplayName: "The site's owner",
        attestationType: "none",
        excludeCredentials: (await access.passkeys()).map(({ id }) => ({ id })),
        authenticatorSelection: { residentKey: "required", userVerification: "required" },
        timeout: CHALLENGE_MINUTES * 60_000,
      });
      return { ok: true as const, options, cookie: await hold(options.challenge, "enrol", link.link) };
    },

    /** Registers the passkey and uses the link up; the answer signs the owner in. */
    async enrol(response: RegistrationResponseJSON, request: Request): Promise<Finished> {
      const refused = ready("enrol", request);
      if (refused) return refused;
      const held = await pending(request, "enrol", response);
      if (!held?.link) return refuse("enrol", 403, "challenge_lost", EXPIRED.enrol);
      const verified = await verifyRegistrationResponse({
        response,
        expectedChallenge: held.challenge,
        expectedOrigin: config.siteUrl!,
        expectedRPID: site!.hostname,
        requireUserVerification: true,
      }).catch(() => null);
      if (!verified?.verified)
        return refuse("enrol", 400, "not_verified", "The passkey could not be verified.");
      if (!(await access.spend(held.challenge, new Date(held.expires).toISOString())))
        return refuse("enrol", 403, "replayed", EXPIRED.enrol);
      const { credential } = verified.registrationInfo;
      const used = await access.useLink(held.link, {
        id: credential.id,
        publicKey: isoBase64URL.fromBuffer(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports,
      });
      if (!used) return refuse("enrol", 403, "bad_link", LINK_REFUSED.unknown);
      ownerLog("enrol", "ok");
      return { ok: true, cookie: await access.startSession(credential.id) };
    },

    /** Cheap and bounded per client; the only step others could use up, and it keeps nothing. */
    async signInOptions(client: string, request: Request) {
      const refused = ready("sign_in", request);
      if (refused) return refused;
      try {
        await starts.consume(client);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const minutes = Math.ceil(rejection.msBeforeNext / 60_000);
        return refuse("sign_in", 429, "too_many_attempts", `Too many attempts. Try again in ${minutes} min.`);
      }
      const options = await generateAuthenticationOptions({
        rpID: site!.hostname,
        userVerification: "required",
        timeout: CHALLENGE_MINUTES * 60_000,
      });
      return { ok: true as const, options, cookie: await hold(options.challenge, "sign_in", null) };
    },

    /** Never limited: an answer the owner's passkey verifies is accepted whatever others did. */
    async signIn(response: AuthenticationResponseJSON, request: Request): Promise<Finished> {
      const refused = ready("sign_in", request);
      if (refused) return refused;
      const held = await pending(request, "sign_in", response);
      if (!held) return refuse("sign_in", 403, "challenge_lost", EXPIRED.sign_in);
      const passkey = await access.passkey(response.id);
      if (!passkey) return refuse("sign_in", 403, "unknown_passkey", NOT_THE_OWNERS);
      const verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: held.challenge,
        expectedOrigin: config.siteUrl!,
        expectedRPID: site!.hostname,
        credential: {
          id: passkey.id,
          publicKey: isoBase64URL.toBuffer(passkey.publicKey),
          counter: passkey.counter,
          transports: passkey.transports,
        },
        requireUserVerification: true,
      }).catch(() => null);
      if (!verified?.verified) return refuse("sign_in", 403, "not_verified", NOT_THE_OWNERS);
      if (!(await access.spend(held.challenge, new Date(held.expires).toISOString())))
        return refuse("sign_in", 403, "replayed", NOT_THE_OWNERS);
      await access.used(passkey.id, verified.authenticationInfo.newCounter);
      ownerLog("sign_in", "ok");
      return { ok: true, cookie: await access.startSession(passkey.id) };
    },
  };
}
