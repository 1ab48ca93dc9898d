// ESLint flat config for the whole monorepo: `npm run lint:code` (also part of `npm run lint` and
// `npm test`). The layering rules are explained in docs/development-reference.md, "Lint and boundaries".
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import globals from 'globals';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Package names of the services; nothing under libs/ or services/ imports them. */
const SERVICE_PACKAGES = ['@preflight/campaign', '@preflight/console', '@preflight/delivery', '@preflight/gateway', '@preflight/integration', '@preflight/issue', '@preflight/webhook'];

const SOURCE = '{ts,tsx,mts,js,mjs}';

/** The import-boundary policies of `boundaries/dependencies` (docs/development-reference.md, "Lint and boundaries"). */
const NO_CROSS_SERVICE = {
  // A service never imports another service (relative paths that leave its folder).
  from: { element: { type: 'service*' } },
  disallow: { to: { element: { type: 'service*', captured: { service: '!{{ from.element.captured.service }}' } } } },
  message: 'services/{{ from.element.captured.service }} must not import another service (services/{{ to.element.captured.service }})',
};
const NO_LIB_TO_SERVICE = {
  // Libraries sit below every service.
  from: { element: { type: 'lib' } },
  disallow: { to: { element: { type: 'service*' } } },
  message: 'libs/ must not import a service (services/{{ to.element.captured.service }})',
};
const NO_DOMAIN_TO_STORAGE = {
  // The domain layer is pure: no row types or queries from storage/.
  from: { element: { type: 'service-domain' } },
  disallow: { to: { element: { type: 'service-storage' } } },
  message: 'domain/ must not import storage/ (row-to-JSON views live in views/, beside the routes)',
};

/**
 * Files allowed to break domain/ -> storage/ for now; the other two policies still apply to them.
 * Add an entry here (with its issue) rather than an inline disable, so the list stays in one place.
 */
/** @type {string[]} */
export const DOMAIN_STORAGE_EXCEPTIONS = [];

export default defineConfig(
  {
    ignores: ['**/node_modules/**', '**/dist/**', '.preflight/**', '.turbo/**', 'libs/events/src/gen/**', 'charts/**', 'deploy/**'],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: [`**/*.${SOURCE}`],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
    },
  },
  {
    // Generic findings the codebase deliberately does differently (one line each).
    rules: {
      // `any` marks deliberate untyped seams (schema-agnostic Kysely<any>, test response bodies); strict tsc covers the rest.
      '@typescript-eslint/no-explicit-any': 'off',
      // A leading underscore marks a binding kept on purpose (omitting a key by destructuring, an unused handler argument).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Importing a service by package name: services have no `exports`, so the boundaries plugin
    // cannot resolve these imports; forbid the names outright in libs/ and services/.
    files: [`libs/**/*.${SOURCE}`, `services/**/*.${SOURCE}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: SERVICE_PACKAGES.flatMap((name) => [name, `${name}/*`]),
              message: 'libs/ and services/ never import a service package (services talk over HTTP and events).',
            },
          ],
        },
      ],
    },
  },
  {
    // Route files serve manifest entries through the kit's route() (the gateway: localEndpoint),
    // so the method, the path and the answer's type come from the manifest, never restated.
    files: [`services/*/src/routes/**/*.${SOURCE}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: SERVICE_PACKAGES.flatMap((name) => [name, `${name}/*`]), message: 'libs/ and services/ never import a service package (services talk over HTTP and events).' }],
          paths: [{ name: '@preflight/http', importNames: ['sendJson'], message: "Answer with io.send from route() (libs/service-kit): it takes exactly the manifest entry's response." }],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='app'][callee.property.name=/^(get|post|put|patch|delete|all|use)$/]",
          message: "Serve the manifest entry with route(app, 'entryId', handler) (libs/service-kit): its method and path come from the manifest.",
        },
      ],
    },
  },
  {
    // Import boundaries: which part of the tree may import which (docs/development-reference.md, "Lint and boundaries").
    files: [`libs/**/*.${SOURCE}`, `services/**/*.${SOURCE}`, `tests/**/*.${SOURCE}`, `scripts/**/*.${SOURCE}`],
    plugins: { boundaries },
    settings: {
      'boundaries/include': ['libs/**/*', 'services/**/*', 'tests/**/*', 'scripts/**/*'],
      'boundaries/elements': [
        // Order matters: the first pattern that matches a file classifies it.
        { type: 'service-domain', pattern: 'services/*/src/domain', capture: ['service'] },
        { type: 'service-storage', pattern: 'services/*/src/storage', capture: ['service'] },
        { type: 'service', pattern: 'services/*', capture: ['service'] },
        { type: 'lib', pattern: 'libs/*', capture: ['lib'] },
        { type: 'tests', pattern: 'tests' },
        { type: 'scripts', pattern: 'scripts' },
      ],
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'allow',
          policies: [NO_CROSS_SERVICE, NO_LIB_TO_SERVICE, NO_DOMAIN_TO_STORAGE],
        },
      ],
    },
  },
  // (A config block may not have an empty `files`, hence the guard once the list is empty.)
  DOMAIN_STORAGE_EXCEPTIONS.length > 0
    ? { files: DOMAIN_STORAGE_EXCEPTIONS, rules: { 'boundaries/dependencies': ['error', { default: 'allow', policies: [NO_CROSS_SERVICE, NO_LIB_TO_SERVICE] }] } }
    : {},
);
