// A visitor's text for the owner's terminal and page: invisible and control characters as `\u{…}` escapes (decision 042).
const UNSEEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

export function visible(text: string): string {
  return text.replace(UNSEEN, (char) => `\\u{${char.codePointAt(0)!.toString(16).toUpperCase()}}`);
}
