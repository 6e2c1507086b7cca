// The contact form's proof-of-work challenge, fetched when a visitor starts on the form; never kept,
// since each is single-use and bound to its client (decision 029).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { contactChallenge } from "~/contact/action.server";

export async function loader(args: LoaderFunctionArgs) {
  return Response.json(await contactChallenge(args), { headers: { "Cache-Control": "no-store" } });
}
