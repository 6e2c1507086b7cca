// The contact feature's one server entry: what the site's wiring, the owner's page and the CLI use of it.
export { createContactAction } from "./action/contact-action.server";
export { readAlertLedger } from "./alerts/notify.server";
export type { OwnerPort, SendNow } from "./delivery/port.server";
export { askedPause } from "./delivery/provider.server";
export { askedPauseWords } from "./rules/words.server";
export type { Relay } from "./delivery/relay.server";
export { clientKey } from "./guard/client.server";
export type { RateLimiters } from "./guard/limits.server";
export { describeState, type Kept } from "./rules/message.server";
export { createContactServices, type ContactServices } from "./services.server";
export type { SharedState, Store } from "./store/store.server";
