// The contact action and its flash as the app runs them, with the configuration read at start.
import { config } from "~/config.server";
import { site } from "~/content/site";
import { createContactAction, createContactFlash } from "./create-action.server";

export const contactFlash = createContactFlash(config.sessionSecret);

export const contactAction = createContactAction({ config, toName: site.name, flash: contactFlash });
