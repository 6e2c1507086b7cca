// For Secure cookies. Behind a proxy, request.url has the forwarded scheme when TRUST_PROXY trusts it.
export function cameOverHttps(request: Request): boolean {
  return new URL(request.url).protocol === "https:";
}
