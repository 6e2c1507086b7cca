// POST /owner/passkey: the passkey ceremonies' steps, as JSON (decision 054).
export { passkeyAction as action } from "~/owner/page.server";
