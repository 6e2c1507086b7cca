// The proof-of-work challenge; never kept, as each is single-use and bound to its client (decision 029).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { contactChallenge } from "~/services.server";

export async function loader(args: LoaderFunctionArgs) {
  return Response.json(await contactChallenge(args), { headers: { "Cache-Control": "no-store" } });
}
