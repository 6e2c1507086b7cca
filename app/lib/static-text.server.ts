// A generated text file (robots.txt, the sitemap, the manifest) with public/'s one-hour cache.
export function staticText(body: string, contentType: string) {
  return new Response(body, {
    headers: { "Content-Type": contentType, "Cache-Control": "public, max-age=3600" },
  });
}
