// The rulebook's refusals: which answers of the provider refuse the account, and which this message alone.

export function accountRefusal(status: number, text: string): string | null {
  if (status === 403 && /non-browser/i.test(text)) {
    return "enable API for non-browser applications in EmailJS, Account → Security";
  }
  if (status === 412) return "reconnect the email service (e.g. Gmail) in EmailJS, Email Services";
  if (status >= 400 && status < 500 && status !== 429) {
    if (/public key|user(_| )?id|service id|template id|private key|access ?token/i.test(text)) {
      return "check EMAILJS_PUBLIC_KEY, EMAILJS_SERVICE_ID, EMAILJS_TEMPLATE_ID and EMAILJS_PRIVATE_KEY against the EmailJS dashboard";
    }
  }
  return null;
}

export type Refusals = { refusals: { status: number; words: string; id: string; at: number }[] };
const REFUSAL_MEMORY_MS = 86_400_000;
const REFUSALS_KEPT = 20;

/** A refusal naming no setting is this message's, unless two other messages met the same one within a day. */
export function refusedOne(
  recorded: Refusals,
  refusal: { status: number; words: string; id: string },
  now: number,
): { next: Refusals; hint: string | null } {
  const recent = recorded.refusals.filter((r) => now - r.at < REFUSAL_MEMORY_MS && r.id !== refusal.id);
  const others = new Set(
    recent.filter((r) => r.status === refusal.status && r.words === refusal.words).map((r) => r.id),
  );
  const next = { refusals: [...recent, { ...refusal, at: now }].slice(-REFUSALS_KEPT) };
  const hint = `EmailJS refused three different messages with ${refusal.status} "${refusal.words}": see what it says in the EmailJS dashboard`;
  return { next, hint: others.size >= 2 ? hint : null };
}
