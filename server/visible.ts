// A visitor's text as the owner's terminal may print it: controls, format characters and line or
// paragraph separators become `\u{…}` escapes, so nothing moves the cursor or hides (decision 042).
const UNSEEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

export function visible(text: string): string {
  return text.replace(UNSEEN, (char) => `\\u{${char.codePointAt(0)!.toString(16).toUpperCase()}}`);
}
