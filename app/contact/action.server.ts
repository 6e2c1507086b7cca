// The contact action as the app runs it: the configuration read at start and
// the owner's name from the content module.
import { config } from "~/config.server";
import { site } from "~/content/site";
import { createContactAction } from "./create-action.server";
import { createContactFlash } from "./flash.server";

export const contactAction = createContactAction({ config, toName: site.name });

/** For the page after the redirect: signed with the same secret as the action's. */
export const contactFlash = createContactFlash(config.sessionSecret);
