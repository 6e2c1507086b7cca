// The contact form's proof of work, solved off the main thread: ALTCHA's own worker loop with Web Crypto.
import { deriveKey } from "altcha-lib/algorithms/web/sha";
import { handler } from "altcha-lib/workers/shared";

handler({ deriveKey });
