/** Only same-site paths: "//evil.example" and "https://…" fall back to "/". */
export function safeRedirectPath(value: FormDataEntryValue | null, fallback = "/") {
  if (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//") || value.includes("\\")) {
    return fallback;
  }
  return value;
}
