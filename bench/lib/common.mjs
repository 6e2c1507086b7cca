// Shared by the bench's parts: the browser and a median.

export {
  systemChromium as CHROME_PATH,
  systemChromiumFlags as CHROME_FLAGS,
} from "../../tests/support/chromium.mjs";

export function median(values) {
  const v = values.filter((x) => typeof x === "number" && Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}
