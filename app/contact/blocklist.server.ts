// CONTACT_BLOCKLIST: senders refused with 403. An entry is an address
// ("spam@example.com") or a whole domain ("@example.com", its subdomains
// included). Matching ignores letter case and "+tag" suffixes, the two free
// ways to vary one mailbox's address.
import * as z from "zod";

export type Blocklist = { addresses: ReadonlySet<string>; domains: ReadonlySet<string> };

export const EMPTY_BLOCKLIST: Blocklist = { addresses: new Set(), domains: new Set() };

// The same rule the form applies to the sender's address.
const isAddress = (value: string) => z.email().safeParse(value).success;

/** The mailbox an address reaches: lower case, without a "+tag". */
function canonical(email: string): { local: string; domain: string } {
  const at = email.lastIndexOf("@");
  const local = email.slice(0, at).toLowerCase().replace(/\+.*$/, "");
  return { local, domain: email.slice(at + 1).toLowerCase() };
}

/**
 * Parses the comma-separated list. Bad entries are named by position, not by
 * value: the list holds other people's addresses, which stay out of the logs.
 */
export function parseBlocklist(
  raw: string,
): { ok: true; blocklist: Blocklist } | { ok: false; error: string } {
  const addresses = new Set<string>();
  const domains = new Set<string>();
  const bad: number[] = [];
  raw.split(",").forEach((part, index) => {
    const entry = part.trim();
    if (entry === "") return;
    if (entry.startsWith("@") && isAddress(`x${entry}`)) {
      domains.add(entry.slice(1).toLowerCase());
    } else if (isAddress(entry)) {
      const { local, domain } = canonical(entry);
      addresses.add(`${local}@${domain}`);
    } else {
      bad.push(index + 1);
    }
  });
  if (bad.length > 0) {
    return {
      ok: false,
      error: `CONTACT_BLOCKLIST: ${bad.length === 1 ? "entry" : "entries"} ${bad.join(", ")} of the comma-separated list ${bad.length === 1 ? "is" : "are"} neither an address (name@example.com) nor a domain (@example.com)`,
    };
  }
  return { ok: true, blocklist: { addresses, domains } };
}

/** Whether mail from `email` (already a valid address) is refused. */
export function isBlocked(blocklist: Blocklist, email: string): boolean {
  const { local, domain } = canonical(email);
  if (blocklist.addresses.has(`${local}@${domain}`)) return true;
  // The domain itself or any parent: "@example.com" also covers "a.example.com".
  const labels = domain.split(".");
  return labels.some((_, i) => blocklist.domains.has(labels.slice(i).join(".")));
}
