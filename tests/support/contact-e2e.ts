// Helpers for the contact e2e specs (with and without JavaScript): the form's
// fields, a marker per test so tests sharing the fake never mix, and the fake.
import { expect, type Page, type TestInfo } from "@playwright/test";
import { fakeControl } from "../fakes/emailjs-fake";
import { FAKE_URL_ENV } from "./emailjs-e2e";

export const fake = () => {
  const url = process.env[FAKE_URL_ENV];
  if (!url) throw new Error(`${FAKE_URL_ENV} is not set: run through playwright.config.ts (global setup)`);
  return fakeControl(url);
};

/** A string unique to this test run, put in the subject so the fake can tell tests apart. */
export function marker(info: TestInfo) {
  return `m${info.testId}${info.retry}${Math.random().toString(36).slice(2, 8)}`;
}

export function message(mark: string) {
  return {
    name: "Grace Hopper",
    email: "grace@example.com",
    subject: `Compilers ${mark}`,
    message: "Hello!\nShall we talk about COBOL?",
  };
}

export type Message = ReturnType<typeof message>;
const LABELS = { name: "Name", email: "Email", subject: "Subject", message: "Message" } as const;

export const field = (page: Page, name: keyof Message) =>
  page.locator("#contact form").getByLabel(LABELS[name], { exact: true });

export async function fillForm(page: Page, values: Message) {
  for (const name of Object.keys(LABELS) as Array<keyof Message>) await field(page, name).fill(values[name]);
}

export async function expectFields(page: Page, values: Message | null) {
  for (const name of Object.keys(LABELS) as Array<keyof Message>) {
    await expect(field(page, name)).toHaveValue(values ? values[name] : "");
  }
}

export const sendButton = (page: Page) =>
  page.locator("#contact form").getByRole("button", { name: /^(Send Message|Sending\.\.\.)$/ });
