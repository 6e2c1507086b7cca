// STUB until the alerts branch is merged.
export type OwnerAlert =
  | { kind: "provider_refusing"; status: number; providerText: string; hint: string }
  | { kind: "provider_back"; waiting: number }
  | { kind: "messages_waiting"; count: number; oldestHours: number }
  | { kind: "quota"; percent: 80 | 100; used: number; limit: number; period: "day" | "month" }
  | { kind: "spam_digest"; count: number; day: string };
export type AlertFormat = "ntfy" | "slack" | "discord" | "json";
export function createAlertSender(
  _settings: { url: string; format: AlertFormat } | null,
  _options?: unknown,
): (alert: OwnerAlert) => Promise<boolean> {
  return async () => false;
}
