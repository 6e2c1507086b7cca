// The EmailJS account the e2e app server runs with: recognisable values, so a
// test can prove none of them reaches the browser.
export const E2E_EMAILJS_IDS = {
  EMAILJS_PUBLIC_KEY: "e2e_pub_K3yN0tF0rBr0wsers",
  EMAILJS_SERVICE_ID: "e2e_service_5eRv1ceId",
  EMAILJS_TEMPLATE_ID: "e2e_template_T3mpl4te",
  EMAILJS_PRIVATE_KEY: "e2e_private_Pr1v4teK3y",
} as const;

/** Where the global setup publishes the base URL of the fake EmailJS API. */
export const FAKE_URL_ENV = "E2E_EMAILJS_FAKE_URL";
