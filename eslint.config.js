// Lint rules are errors or off, never warnings.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'dist/', 'coverage/', 'scratch/', '.scratch/', '.bench/'] },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } } },
  // Scripts served to browsers (the original's regformcheck.js): a browser's globals, no module.
  { files: ['src/**/assets/*.js'], languageOptions: { sourceType: 'script', globals: { window: 'readonly', document: 'readonly' } } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', URLSearchParams: 'readonly' } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      'no-control-regex': 'off',
    },
  },
  {
    // Engines differ only under store/dialects/ (and in migrations): elsewhere the store asks
    // its connection for a capability (transactionLocks, search…), never which engine it is.
    // Events are built by the constructors of src/events/; the rest of the code hands them on.
    files: ['src/**/*.ts'],
    ignores: ['src/store/dialects/**', 'src/store/migrations/**', 'src/events/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "BinaryExpression > MemberExpression[property.name='engine']",
          message: 'No engine test outside src/store/dialects/: give the connection a capability instead.',
        },
        {
          selector: "BinaryExpression > Identifier[name='engine']",
          message: 'No engine test outside src/store/dialects/: give the connection a capability instead.',
        },
        { selector: "Property[key.name='type'][value.value=/^member\\./]", message: 'Build events with the constructors of src/events/.' },
        {
          // On PostgreSQL `reads` is the pool itself: a write through it would work, and bypass the one write path.
          selector:
            "CallExpression[callee.object.property.name='reads'][callee.property.name=/^(insertInto|replaceInto|updateTable|deleteFrom|mergeInto|transaction|startTransaction)$/]",
          message: 'Write with write, writeAll or transact (store/writes.ts), never through reads.',
        },
      ],
    },
  },
  {
    // The store writes one way (store/writes.ts): its repositories are given a StoreConnection,
    // which has no `db`; only the composition of the store and the migrations see the engine's.
    files: ['src/store/*.ts'],
    ignores: ['src/store/store.ts', 'src/store/writes.ts', 'src/store/connect.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: './dialects/dialect.js',
              importNames: ['EngineConnection'],
              message: 'A repository takes a StoreConnection (store/writes.ts) and writes with write, writeAll or transact.',
              allowTypeImports: false,
            },
          ],
        },
      ],
    },
  },
);
