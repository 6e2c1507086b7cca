// The owner's page on the server: what it shows and each action, through the same port as the CLI's commands
// (decision 054). Every action checks the request's origin and the session; each answers with a redirect.
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { config } from "~/config.server";
import { contactServices as services } from "~/services.server";
import { clientKey, describeState, type Kept, type SendNow } from "~/contact/index.server";
import { readFormPost } from "~/lib/form-post.server";
import { visible } from "~/lib/visible";
import {
  createOwnerAccess,
  OWNER_PATH,
  whyNotReady,
  whyNotReadyFor,
  type Flash,
  type Session,
} from "./access.server";
import { createCeremonies } from "./ceremony.server";
import { relayStatus, testMessage } from "./status.server";

export const ownerAccess = createOwnerAccess(config, services.state);
const ceremonies = createCeremonies(config, ownerAccess, services.rateLimiters.limiter);

/** Never kept by any cache, never indexed. */
export const OWNER_HEADERS = { "Cache-Control": "private, no-store", "X-Robots-Tag": "noindex" };
const FORM_LIMIT = 16_000;
const ID = /^[\w.-]{1,128}$/;

export type MessageView = {
  id: string;
  state: Kept["state"];
  stateText: string;
  receivedAt: string;
  nextAttempt: string | null;
  attempts: number;
  name: string;
  email: string;
  subject: string;
  /** The message's lines, invisible characters shown as `\u{…}` as in the CLI. */
  lines: string[];
  notes: string[];
};

function view(kept: Kept): MessageView {
  const notes = [
    kept.uncertain ? "uncertain: may have been delivered" : "",
    kept.providerText ? `EmailJS said "${visible(kept.providerText)}"` : "",
    kept.signals?.length ? `signals: ${visible(kept.signals.join(", "))}` : "",
  ].filter(Boolean);
  return {
    id: kept.id,
    state: kept.state,
    stateText: describeState(kept),
    receivedAt: kept.receivedAt,
    nextAttempt: kept.nextAttempt,
    attempts: kept.attempts,
    name: visible(kept.params.name),
    email: visible(kept.params.from_email),
    subject: visible(kept.params.subject),
    lines: kept.params.message.split(/\r?\n/).map(visible),
    notes,
  };
}

const fromThisSite = (context: LoaderFunctionArgs["context"]) =>
  context.sentOrigin === true && context.crossSite !== true;

/** Why signing in is off for this request, in words the owner can act on; null when it is on. */
export const notReadyFor = (request: Request) => whyNotReady(config) ?? whyNotReadyFor(config, request);

export async function ownerLoader({ request }: LoaderFunctionArgs) {
  const session = await ownerAccess.session(request);
  // Signed out, the page says nothing of the owner: not even whether a passkey is registered (decision 058).
  if (!session)
    return data({ signedIn: false as const, notReady: notReadyFor(request) }, { headers: OWNER_HEADERS });
  const owner = services.engine.owner;
  const [status, listed, passkeys] = await Promise.all([
    relayStatus(config, services.relay, services.state, owner),
    owner.list(),
    ownerAccess.passkeys(),
  ]);
  return data(
    {
      signedIn: true as const,
      flash: session.flash,
      status,
      messages: listed.map(view),
      passkeys: passkeys.map((passkey) => ({ ...passkey, current: passkey.id === session.passkey })),
    },
    { headers: OWNER_HEADERS },
  );
}

/** The refusal of a post from another site or without a session: said on the page, nothing changed. */
async function checked(
  args: ActionFunctionArgs,
): Promise<{ ok: true; session: Session; form: FormData } | { ok: false; status: number; error: string }> {
  if (!fromThisSite(args.context))
    return { ok: false, status: 403, error: "Refused: this request did not come from this site's page." };
  const session = await ownerAccess.session(args.request);
  if (!session) return { ok: false, status: 403, error: "Refused: sign in first." };
  const post = await readFormPost(args.request, FORM_LIMIT);
  if (!post.ok) return { ok: false, status: post.status, error: "Refused: not a form this page sends." };
  return { ok: true, session, form: post.form };
}

const who = (kept: Kept | null) =>
  kept ? `${visible(kept.params.name)} "${visible(kept.params.subject)}"` : "the message";

function sentWords(done: string, kept: Kept | null, sent: SendNow): Flash {
  if (sent.sent) return { ok: true, text: `${done} and sent: ${who(kept)}.` };
  const state = sent.kept ? describeState(sent.kept) : "not kept";
  const words = sent.kept?.providerText ? `, EmailJS said "${visible(sent.kept.providerText)}"` : "";
  return { ok: true, text: `${done}, not sent yet (${state}${words}): ${who(kept)}.` };
}

async function act(intent: string, id: string): Promise<Flash> {
  const owner = services.engine.owner;
  if (intent === "test") {
    const sent = await owner.test(testMessage("the owner's page"));
    if (sent.sent) return { ok: true, text: "Test message sent: check the owner's mailbox." };
    return {
      ok: false,
      text: `Test message not sent (${sent.kept ? describeState(sent.kept) : "not kept"}).`,
    };
  }
  if (!ID.test(id)) return { ok: false, text: "No message by that id." };
  const kept = await owner.get(id);
  const gone = { ok: false, text: "No such message any more: it was sent, released or deleted meanwhile." };
  if (intent === "delete")
    return (await owner.remove(id)) ? { ok: true, text: `Deleted: ${who(kept)}.` } : gone;
  if (intent === "release") {
    if (kept?.state !== "held") return gone;
    const sent = await owner.release(id);
    return sent ? sentWords("Released", kept, sent) : gone;
  }
  if (intent === "send") {
    if (!kept || kept.state === "held") return gone;
    const sent = await owner.sendNow(id);
    return sent ? sentWords("Tried now", kept, sent) : gone;
  }
  return { ok: false, text: "Unknown action." };
}

export async function ownerAction(args: ActionFunctionArgs) {
  const checks = await checked(args);
  if (!checks.ok) return data({ error: checks.error }, { status: checks.status, headers: OWNER_HEADERS });
  const { session, form } = checks;
  const intent = String(form.get("intent") ?? "");
  const id = String(form.get("id") ?? "");
  const headers = new Headers(OWNER_HEADERS);
  if (intent === "sign_out") headers.append("Set-Cookie", await ownerAccess.signOut(session));
  else if (intent === "remove_passkey") {
    const removed = await ownerAccess.removePasskey(id);
    if (id !== session.passkey)
      await ownerAccess.flash(session, {
        ok: removed,
        text: removed ? "Passkey removed." : "No such passkey.",
      });
  } else {
    const flash = await act(intent, id);
    await ownerAccess.flash(session, flash);
  }
  return redirect(OWNER_PATH, { status: 303, headers });
}

/** A kept message whole, as `outbox export` prints it, as a download. */
export async function exportAction(args: ActionFunctionArgs) {
  const checks = await checked(args);
  const plain = (status: number, text: string) =>
    new Response(text, {
      status,
      headers: { ...OWNER_HEADERS, "Content-Type": "text/plain; charset=utf-8" },
    });
  if (!checks.ok) return plain(checks.status, checks.error);
  const id = String(checks.form.get("id") ?? "");
  const kept = ID.test(id) ? await services.engine.owner.get(id) : null;
  if (!kept) return plain(404, "No such kept message.");
  return new Response(JSON.stringify(kept, null, 2), {
    headers: {
      ...OWNER_HEADERS,
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="message-${id}.json"`,
    },
  });
}

/** The passkey ceremonies' steps (enrol from a link, sign in), as JSON for @simplewebauthn/browser. */
export async function passkeyAction({ request, context }: ActionFunctionArgs) {
  const answer = (body: object, status = 200, cookies: string[] = []) => {
    const headers = new Headers(OWNER_HEADERS);
    for (const cookie of cookies) headers.append("Set-Cookie", cookie);
    return Response.json(body, { status, headers });
  };
  if (!fromThisSite(context))
    return answer({ error: "Refused: this request did not come from this site's page." }, 403);
  const post = await readFormPost(request, FORM_LIMIT);
  if (!post.ok) return answer({ error: "Refused: not a form this page sends." }, post.status);
  const client = clientKey(context.clientAddress);
  const field = (name: string) => String(post.form.get(name) ?? "");
  const parsed = <T>(): T | null => {
    try {
      const value: unknown = JSON.parse(field("response"));
      return value && typeof value === "object" ? (value as T) : null;
    } catch {
      return null;
    }
  };
  const step = field("step");
  if (step === "enrol_options" || step === "sign_in_options") {
    const started =
      step === "enrol_options"
        ? await ceremonies.enrolOptions(field("token"), request)
        : await ceremonies.signInOptions(client, request);
    if (!started.ok) return answer({ error: started.error }, started.status);
    return answer({ options: started.options }, 200, [started.cookie]);
  }
  const enrolment = step === "enrol" ? parsed<RegistrationResponseJSON>() : null;
  const signIn = step === "sign_in" ? parsed<AuthenticationResponseJSON>() : null;
  if (!enrolment && !signIn) return answer({ error: "Refused: not a step of a passkey ceremony." }, 400);
  // A finish takes the browser's challenge, whatever its outcome: pressing the button again starts afresh.
  const finished = enrolment
    ? await ceremonies.enrol(enrolment, request)
    : await ceremonies.signIn(signIn!, request);
  const cleared = await ceremonies.clear();
  if (!finished.ok) return answer({ error: finished.error }, finished.status, [cleared]);
  return answer({ location: OWNER_PATH }, 200, [cleared, finished.cookie]);
}
