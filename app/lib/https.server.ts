/**
 * Whether the visitor's request came over HTTPS, so cookies can be marked
 * Secure. Behind a proxy the server builds request.url from the forwarded
 * scheme when TRUST_PROXY says to believe it.
 */
export function cameOverHttps(request: Request): boolean {
  return new URL(request.url).protocol === "https:";
}
