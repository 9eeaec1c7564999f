import oclif from 'eslint-config-oclif'
import prettier from 'eslint-config-prettier'

const ONLY_HTTP = 'All outbound HTTP goes through src/http (a Transport): timeouts, user-agent, tracing, proxy and errors live there'
const UNDICI_PUBLIC = "undici's public API only ('undici'): its lib/ files are internals"
const OUTBOUND_HTTP = ['node:http', 'node:https', 'http', 'https'].map((name) => ({
  name,
  importNames: ['request', 'get', 'Agent', 'globalAgent'],
  message: ONLY_HTTP,
}))

/**
 * The layer table of docs/architecture.md, as lint rules: the folders each layer may NOT import
 * (relative imports are matched by their path segments). Every folder but src/http is also kept
 * from speaking HTTP itself. test/unit/layers.test.ts has a case for each border.
 */
const FOLDERS = ['audit', 'cli', 'commands', 'hooks', 'http', 'profiles', 'runtime', 'sandbox', 'services', 'startup']
const LAYERS = [
  {files: ['src/commands/**/*.ts'], may: ['audit', 'cli', 'commands', 'http', 'profiles', 'runtime', 'sandbox', 'services']},
  {files: ['src/hooks/**/*.ts'], may: ['cli', 'hooks']},
  {files: ['src/cli/**/*.ts'], may: ['audit', 'cli', 'http', 'profiles', 'runtime', 'services']},
  {files: ['src/runtime/**/*.ts'], may: ['audit', 'http', 'profiles', 'runtime', 'services']},
  {files: ['src/audit/**/*.ts'], may: ['audit', 'http', 'profiles', 'services']},
  {files: ['src/profiles/**/*.ts'], may: ['http', 'profiles', 'services']},
  {files: ['src/services/**/*.ts'], may: ['http', 'services'], cli: true},
  {files: ['src/sandbox/**/*.ts'], ignores: ['src/sandbox/core/**'], may: ['http', 'sandbox', 'services'], cli: true},
  // The core reaches the service modules only through src/sandbox/modules.ts and the SandboxModule hooks.
  {files: ['src/sandbox/core/**/*.ts'], may: ['http', 'sandbox', 'services'], cli: true, sharedBy: 'src/sandbox/modules.ts'},
  {files: ['src/http/**/*.ts'], may: ['http'], speaksHttp: true},
  {files: ['src/startup/**/*.ts'], may: ['startup']},
  {files: ['src/errors.ts', 'src/control-chars.ts', 'src/suggest.ts', 'src/version.ts', 'src/oclif.ts'], may: []},
]

function layerRules() {
  return LAYERS.map(({cli, files, ignores, may, sharedBy, speaksHttp}) => {
    const layer = files[0].replace(/\/\*\*.*$/, '')
    const patterns = FOLDERS.filter((folder) => !may.includes(folder)).map((folder) => ({
      group: [`**/${folder}/**`, `../${folder}/**`],
      message: `${layer} does not import src/${folder} (docs/architecture.md, "Layers")`,
    }))
    if (sharedBy) patterns.push({group: ['../*/**', '!../../**', '../../services/*/**'], message: `shared code names no service: it reaches them through ${sharedBy} and their modules' hooks`})
    if (cli) patterns.push({group: ['@oclif/*'], message: 'src/services and src/sandbox know nothing of the CLI; oclif belongs in src/cli and src/commands'})
    if (!speaksHttp) patterns.push({group: ['undici', 'undici/*'], message: ONLY_HTTP})
    return {
      files,
      ...(ignores ? {ignores} : {}),
      rules: {
        'no-restricted-imports': ['error', {paths: speaksHttp ? [] : OUTBOUND_HTTP, patterns}],
        ...(speaksHttp ? {} : {'no-restricted-globals': ['error', {name: 'fetch', message: ONLY_HTTP}]}),
      },
    }
  })
}

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
  // The layers of docs/architecture.md: each folder imports only the layers its row names (layerRules below).
  ...layerRules(),
  // The domain and the emulator know nothing of the CLI: no stdout.
  {
    files: ['src/services/**/*.ts', 'src/sandbox/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {object: 'process', property: 'stdout', message: 'Return data; printing is the CLI\'s job (src/cli)'},
      ],
    },
  },
  // oclif's public API only: its underscored members (_run, _parse, ...) are internals that change between releases.
  {
    files: ['src/cli/**/*.ts', 'src/commands/**/*.ts', 'src/hooks/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'MethodDefinition[key.name=/^_[a-zA-Z]/], PropertyDefinition[key.name=/^_[a-zA-Z]/]',
          message: "oclif's underscored members are internal: use init, run, catch and finally (or a hook)",
        },
      ],
    },
  },
]
