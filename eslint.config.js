// ESLint flat config: typescript-eslint for all code, React, hooks and jsx-a11y
// for the app's components, Prettier's config last (formatting is Prettier's).
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import prettier from "eslint-config-prettier";
import jsxA11y from "eslint-plugin-jsx-a11y";
import react from "eslint-plugin-react";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

// The root loader's type (what useRouteLoaderData returns) is not code.
const NO_ROUTE = {
  regex: "^~/(routes|root)",
  allowTypeImports: true,
  message: "A feature imports no route.",
};
/** The contact feature is entered by its entries only: ~/contact (the page's) and ~/contact/index.server. */
const CONTACT_ENTRIES = {
  regex: "^~/contact/(?!index\\.server$)",
  message: "Outside app/contact/, import ~/contact or ~/contact/index.server, its entries.",
};

export default defineConfig(
  { ignores: ["build/", ".cache/", "bench/results/", "playwright-report/", "test-results/", "public/"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `_name` marks a parameter or binding kept for its position (an Express
      // error handler's arity, a destructured rest).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
  },
  {
    // page.evaluate() callbacks in the bench's and tests' plain JS run in the browser.
    files: ["bench/**/*.mjs", "tests/**/*.mjs"],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    // Playwright reads a fixture's first parameter as a destructuring pattern:
    // a fixture that needs no other fixture must take `{}`.
    files: ["tests/e2e/**/*.ts"],
    rules: { "no-empty-pattern": "off" },
  },
  {
    files: ["**/*.{jsx,tsx}", "app/**/*.ts"],
    ...react.configs.flat.recommended,
    ...react.configs.flat["jsx-runtime"],
    languageOptions: {
      ...react.configs.flat.recommended.languageOptions,
      globals: { ...globals.browser },
    },
    plugins: { react, "jsx-a11y": jsxA11y, "react-hooks": reactHooks },
    settings: { react: { version: "detect" } },
    rules: {
      ...react.configs.flat.recommended.rules,
      ...react.configs.flat["jsx-runtime"].rules,
      ...jsxA11y.flatConfigs.recommended.rules,
      // The two classic hook rules. The plugin's React Compiler rules (refs,
      // immutability, set-state-in-effect, …) judge code written for the
      // compiler, which this app does not use.
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
      // Props are typed by TypeScript.
      "react/prop-types": "off",
      // An apostrophe in copy is text; a stray `>` or `}` is the typo worth catching.
      "react/no-unescaped-entities": ["error", { forbid: [">", "}"] }],
    },
  },
  // Module code the browser may load evaluates no ICU call: the first one costs about 50 ms at 4× CPU,
  // inside the page's longest task (decision 066).
  {
    files: ["app/**/*.{ts,tsx}"],
    ignores: ["app/**/*.server.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.property.name=/^toLocale/], MemberExpression[object.name='Intl']",
          message:
            "Browser code formats without Intl or toLocale*: ICU's first use blocks the page (decision 066).",
        },
      ],
    },
  },
  // The layers (docs/development.md): routes on top; features (contact, theme,
  // sections) in the middle; lib, content, config and ui primitives at the
  // bottom. A module never imports code from one above it.
  {
    files: ["app/lib/**", "app/content/**", "app/config.server.ts", "app/components/ui/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^~/(routes|contact|theme|components/(?!ui/)|root|entry|page-response|deferred-scripts)",
              message: "A bottom layer (lib, content, config, ui) imports no feature, section or route.",
            },
          ],
        },
      ],
    },
  },
  {
    // A later block's options replace an earlier one's: ui/ keeps the bottom layer's rule.
    files: ["app/theme/**", "app/components/**"],
    ignores: ["app/components/ui/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": ["error", { patterns: [NO_ROUTE, CONTACT_ENTRIES] }],
    },
  },
  {
    files: ["app/contact/**"],
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns: [NO_ROUTE] }] },
  },
  {
    files: ["app/routes/**", "app/owner/**", "app/*.{ts,tsx}", "server/**"],
    ignores: ["app/config.server.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns: [CONTACT_ENTRIES] }] },
  },
  {
    files: ["tests/unit/**", "tests/integration/**", "tests/e2e/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./(?!support/|\\.\\./)",
              message: "A test folder imports only from tests/support/ (and the code it tests).",
            },
          ],
        },
      ],
    },
  },
  prettier,
);
