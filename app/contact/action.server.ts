// The contact action as the app runs it: the configuration read at start and
// the owner's name from the content module.
import { config } from "~/config.server";
import { site } from "~/content/site";
import { createContactAction, createContactFlash } from "./create-action.server";

/** Committed by the action, read by the page after the redirect. */
export const contactFlash = createContactFlash(config.sessionSecret);

export const contactAction = createContactAction({ config, toName: site.name, flash: contactFlash });
