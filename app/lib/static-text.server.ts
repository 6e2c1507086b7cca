/**
 * A generated text file (robots.txt, the sitemap, the manifest) with the
 * one-hour cache the server gives the files in public/: they change only
 * when the content does, and then a stale copy for an hour harms no one.
 */
export function staticText(body: string, contentType: string) {
  return new Response(body, {
    headers: { "Content-Type": contentType, "Cache-Control": "public, max-age=3600" },
  });
}
