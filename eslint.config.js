import oclif from 'eslint-config-oclif'
import prettier from 'eslint-config-prettier'

const ONLY_HTTP = 'All outbound HTTP goes through src/http (a Transport): timeouts, user-agent, tracing, proxy and errors live there'
const UNDICI_PUBLIC = "undici's public API only ('undici'): its lib/ files are internals"
const OUTBOUND_HTTP = ['node:http', 'node:https', 'http', 'https'].map((name) => ({
  name,
  importNames: ['request', 'get', 'Agent', 'globalAgent'],
  message: ONLY_HTTP,
}))

/** How an import of each layer reads from another layer's file (relative paths: gitignore-style patterns). */
const LAYER_IMPORTS = {
  commands: ['**/commands/**', '**/hooks/**'],
  cli: ['**/cli/**'],
  runtime: ['**/runtime/**'],
  audit: ['**/audit/**'],
  profiles: ['**/profiles/**'],
  services: ['**/services/**'],
  http: ['**/http/**'],
  sandbox: ['**/sandbox/**'],
  errors: ['**/errors.js', '**/control-chars.js', '**/suggest.js'],
}

/**
 * The layer table of docs/architecture.md: what each layer may import besides itself
 * (test/unit/layers.test.ts holds the two equal). '@oclif' says it may know oclif.
 */
const LAYERS = [
  {layer: 'commands', files: ['src/commands/**/*.ts', 'src/hooks/**/*.ts'], may: ['@oclif', 'cli', 'runtime', 'audit', 'profiles', 'services', 'http', 'sandbox', 'errors']},
  {layer: 'cli', files: ['src/cli/**/*.ts'], may: ['@oclif', 'runtime', 'audit', 'profiles', 'services', 'http', 'errors']},
  {layer: 'runtime', files: ['src/runtime/**/*.ts'], may: ['@oclif', 'audit', 'profiles', 'services', 'http', 'errors']},
  {layer: 'audit', files: ['src/audit/**/*.ts'], may: ['profiles', 'services', 'http', 'errors']},
  {layer: 'profiles', files: ['src/profiles/**/*.ts'], may: ['services', 'http', 'errors']},
  {layer: 'services', files: ['src/services/**/*.ts'], may: ['http', 'errors']},
  {layer: 'http', files: ['src/http/**/*.ts'], may: ['errors']},
  {layer: 'errors', files: ['src/errors.ts', 'src/control-chars.ts', 'src/suggest.ts'], may: []},
  {layer: 'sandbox', files: ['src/sandbox/**/*.ts'], may: ['services', 'http', 'errors']},
]

export default [
  {ignores: ['dist/', 'node_modules/', 'coverage/', 'oclif.manifest.json', 'bin/', 'tmp/']},
  ...oclif,
  prettier,
  {
    rules: {
      // A CLI's own process owns its exit; numbers are the documented exit-code table.
      'n/no-process-exit': 'off',
      'unicorn/no-process-exit': 'off',
      // Dynamic imports keep start-up fast; these rules fight them.
      'n/no-unsupported-features/node-builtins': 'off',
      'unicorn/no-useless-undefined': 'off',
      'unicorn/prefer-top-level-await': 'off',
      'unicorn/no-array-reduce': 'off',
      'unicorn/prevent-abbreviations': 'off',
      'unicorn/no-null': 'off',
      'unicorn/prefer-string-raw': 'off',
      'perfectionist/sort-objects': 'off',
      'perfectionist/sort-object-types': 'off',
      'perfectionist/sort-interfaces': 'off',
      'perfectionist/sort-classes': 'off',
      'perfectionist/sort-union-types': 'off',
      'perfectionist/sort-modules': 'off',
      'perfectionist/sort-switch-case': 'off',
      'perfectionist/sort-maps': 'off',
      'perfectionist/sort-sets': 'off',
      'perfectionist/sort-enums': 'off',
      'perfectionist/sort-array-includes': 'off',
      'perfectionist/sort-intersection-types': 'off',
      'perfectionist/sort-heritage-clauses': 'off',
      'no-await-in-loop': 'off',
      'max-params': 'off',
      complexity: 'off',
      'max-depth': ['error', 5],
      'no-warning-comments': 'off',
      camelcase: 'off',
      'new-cap': 'off',
      'no-control-regex': 'off',
      'unicorn/no-array-callback-reference': 'off',
      'unicorn/no-array-for-each': 'off',
      'unicorn/no-nested-ternary': 'off',
      'no-nested-ternary': 'off',
      'unicorn/prefer-event-target': 'off',
      'unicorn/no-await-expression-member': 'off',
      'unicorn/import-style': 'off',
      'unicorn/text-encoding-identifier-case': 'off',
      'unicorn/prefer-spread': 'off',
      'unicorn/number-literal-case': 'off',
      'unicorn/numeric-separators-style': 'off',
      'unicorn/filename-case': 'off',
      'unicorn/switch-case-braces': 'off',
      'no-promise-executor-return': 'off',
      'jsdoc/require-jsdoc': 'off',
      'jsdoc/require-param': 'off',
      'jsdoc/require-returns': 'off',
      'jsdoc/check-param-names': 'off',
      'jsdoc/tag-lines': 'off',
      'import/no-unresolved': 'off',
      'n/no-missing-import': 'off',
      'n/no-extraneous-import': 'off',
      'n/hashbang': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      'default-case': 'off',
      'no-fallthrough': 'off',
      'no-constant-binary-expression': 'off',
      'unicorn/consistent-function-scoping': 'off',
      'no-return-assign': 'off',
      'no-bitwise': 'off',
      'no-labels': 'off',
      'unicorn/no-negated-condition': 'off',
      'no-negated-condition': 'off',
      'unicorn/prefer-ternary': 'off',
      'unicorn/no-object-as-default-parameter': 'off',
      'unicorn/no-anonymous-default-export': 'off',
      'unicorn/no-typeof-undefined': 'off',
      'unicorn/prefer-math-min-max': 'off',
      'unicorn/prefer-global-this': 'off',
      'object-shorthand': 'off',
      'prefer-destructuring': 'off',
      'unicorn/prefer-logical-operator-over-ternary': 'off',
      'mocha/no-mocha-arrows': 'off',
      'mocha/no-setup-in-describe': 'off',
      'mocha/max-top-level-suites': 'off',
      'mocha/no-top-level-hooks': 'off',
      'mocha/no-exports': 'off',
      'mocha/consistent-spacing-between-blocks': 'off',
      'mocha/no-identical-title': 'off',
      'mocha/no-sibling-hooks': 'off',
      '@stylistic/lines-between-class-members': 'off',
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_'}],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.mjs'],
    rules: {
      'mocha/no-pending-tests': 'off',
      'mocha/handle-done-callback': 'off',
      'no-unused-expressions': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      // scenario syntax is ${name}: tests spell it in plain strings on purpose
      'no-template-curly-in-string': 'off',
    },
  },
  // undici through its public entry only, everywhere (src/http included): its lib/ files are internals that change with each major.
  {
    files: ['**/*.{ts,js,mjs,cjs}'],
    rules: {
      'n/no-restricted-import': ['error', [{name: ['undici/**'], message: UNDICI_PUBLIC}]],
    },
  },
  // One transport: only src/http speaks HTTP (the webhook receiver may still serve with node:http's
  // createServer); and each layer imports only the layers docs/architecture.md's table allows.
  ...LAYERS.map(({layer, files, may}) => ({
    files,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: layer === 'http' ? [] : OUTBOUND_HTTP,
          patterns: [
            ...(layer === 'http' ? [] : [{group: ['undici', 'undici/*'], message: ONLY_HTTP}]),
            ...(may.includes('@oclif') ? [] : [{group: ['@oclif/*'], message: `${layer} knows nothing of oclif: only commands, cli and runtime (which runs commands in-process) do`}]),
            ...Object.entries(LAYER_IMPORTS)
              .filter(([other]) => other !== layer && !may.includes(other))
              .map(([other, group]) => ({group, message: `${layer} may not import ${other} (docs/architecture.md, Layers)`})),
          ],
        },
      ],
    },
  })),
  {
    files: ['src/**/*.ts'],
    ignores: ['src/http/**'],
    rules: {'no-restricted-globals': ['error', {name: 'fetch', message: ONLY_HTTP}]},
  },
  // The domain and the emulator write nothing to stdout.
  {
    files: ['src/services/**/*.ts', 'src/sandbox/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {object: 'process', property: 'stdout', message: 'Return data; printing is the CLI\'s job (src/cli)'},
      ],
    },
  },
  // The domain speaks no CLI: a flag word (`--reason`) in src/services is the CLI's to write. A
  // service throws an InputError naming its input, and a command words it with its flag.
  {
    files: ['src/services/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['Literal[value=/--[a-z]/]', 'TemplateElement[value.raw=/--[a-z]/]'].map((selector) => ({
          selector,
          message: 'No flag words in src/services: throw an InputError naming the input; the command words it with its flag (src/cli/input-words.ts)',
        })),
      ],
    },
  },
]
