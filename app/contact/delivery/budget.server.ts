// The send budget: mails that may have reached the provider, counted per day and per month (decision 045).
import type { WaitingFor } from "../rules/message.server";
import type { SharedState } from "../store/store.server";

export type BudgetSettings = {
  daily: number;
  monthly: number;
  monthStartsOn: number;
  monthSeconds: number | null;
};

type Ledger = { day: string; dayUsed: number; month: string; monthUsed: number; told: number[] };

export type BudgetUsage = {
  day: { used: number; limit: number; turnsAt: Date };
  month: { used: number; limit: number; turnsAt: Date };
};

type Taken =
  | { ok: true; crossed: number | null }
  | { ok: false; waiting: Extract<WaitingFor, "day_limit" | "month_limit">; turnsAt: Date };

export type Budget = { take(): Promise<Taken>; giveBack(): Promise<void>; usage(): Promise<BudgetUsage> };

const THRESHOLDS = [80, 100];
const DAY_MS = 86_400_000;

function periods(settings: BudgetSettings, now: Date) {
  const dayStart = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  let monthStart: number;
  let monthEnd: number;
  if (settings.monthSeconds) {
    const length = settings.monthSeconds * 1_000;
    monthStart = Math.floor(now.getTime() / length) * length;
    monthEnd = monthStart + length;
  } else {
    const [year, month, day] = [now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()];
    const first = day >= settings.monthStartsOn ? month : month - 1;
    monthStart = Date.UTC(year, first, settings.monthStartsOn);
    monthEnd = Date.UTC(year, first + 1, settings.monthStartsOn);
  }
  return {
    day: new Date(dayStart).toISOString(),
    dayEnd: new Date(dayStart + DAY_MS),
    month: new Date(monthStart).toISOString(),
    monthEnd: new Date(monthEnd),
  };
}

function current(ledger: Ledger, settings: BudgetSettings, now: Date): Ledger {
  const { day, month } = periods(settings, now);
  return {
    day,
    dayUsed: ledger.day === day ? ledger.dayUsed : 0,
    month,
    monthUsed: ledger.month === month ? ledger.monthUsed : 0,
    told: ledger.month === month ? ledger.told : [],
  };
}

const LEDGER = "budget";
const EMPTY: Ledger = { day: "", dayUsed: 0, month: "", monthUsed: 0, told: [] };

export function createBudget(settings: BudgetSettings, state: SharedState, now = () => new Date()): Budget {
  return {
    take: () =>
      state.change<Ledger, Taken>(LEDGER, EMPTY, (stored) => {
        const at = now();
        const ledger = current(stored, settings, at);
        const { dayEnd, monthEnd } = periods(settings, at);
        if (ledger.monthUsed >= settings.monthly) {
          return { next: null, result: { ok: false, waiting: "month_limit", turnsAt: monthEnd } };
        }
        if (ledger.dayUsed >= settings.daily) {
          return { next: null, result: { ok: false, waiting: "day_limit", turnsAt: dayEnd } };
        }
        const monthUsed = ledger.monthUsed + 1;
        const crossed =
          THRESHOLDS.filter((t) => monthUsed * 100 >= t * settings.monthly && !ledger.told.includes(t)).at(
            -1,
          ) ?? null;
        const told = crossed
          ? THRESHOLDS.filter((t) => t <= crossed || ledger.told.includes(t))
          : ledger.told;
        return {
          next: { ...ledger, dayUsed: ledger.dayUsed + 1, monthUsed, told },
          result: { ok: true, crossed },
        };
      }),
    giveBack: () =>
      state.change(LEDGER, EMPTY, (stored) => {
        const ledger = current(stored, settings, now());
        return {
          next: {
            ...ledger,
            dayUsed: Math.max(0, ledger.dayUsed - 1),
            monthUsed: Math.max(0, ledger.monthUsed - 1),
          },
          result: undefined,
        };
      }),
    async usage() {
      const at = now();
      const ledger = current(await state.read(LEDGER, EMPTY), settings, at);
      const { dayEnd, monthEnd } = periods(settings, at);
      return {
        day: { used: ledger.dayUsed, limit: settings.daily, turnsAt: dayEnd },
        month: { used: ledger.monthUsed, limit: settings.monthly, turnsAt: monthEnd },
      };
    },
  };
}
