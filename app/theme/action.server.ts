import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { readFormPost } from "~/lib/form-post.server";
import { safeRedirectPath } from "~/theme/safe-redirect";
import { parseTheme, Theme, themeSession } from "./session.server";

/** JS posts `theme` (204); the no-JS form posts `redirectTo`: the theme flips, the visitor is sent back. */
export async function setThemeAction({ request, context }: ActionFunctionArgs) {
  if (context.crossSite) {
    return new Response("Refused: this form was sent from another site.", { status: 403 });
  }
  const post = await readFormPost(request, 1024);
  if (!post.ok) {
    const message = post.status === 415 ? "Expected a form post." : "Form too large.";
    return new Response(message, { status: post.status });
  }
  const { form } = post;
  const session = await themeSession(request);
  const stored = session.getTheme();
  session.setTheme(parseTheme(form.get("theme")) ?? (stored === Theme.LIGHT ? Theme.DARK : Theme.LIGHT));
  const headers = { "Set-Cookie": await session.commit() };
  const redirectTo = form.get("redirectTo");
  if (redirectTo === null) return new Response(null, { status: 204, headers });
  const back = withRefererQuery(redirectTo, request.headers.get("Referer"));
  return redirect(safeRedirectPath(back), { status: 303, headers });
}

/** The page posts its path only (decision 015); the query comes back from a same-path Referer. */
function withRefererQuery(path: FormDataEntryValue, referer: string | null) {
  if (typeof path !== "string" || !referer || !URL.canParse(referer)) return path;
  const from = new URL(referer);
  return from.pathname === path ? from.pathname + from.search : path;
}

export function setThemeLoader() {
  return redirect("/");
}
