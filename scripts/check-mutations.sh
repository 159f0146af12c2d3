#!/usr/bin/env bash
# Proves that the reliability and security tests fail when the behaviour they guard is
# removed: each line below removes one defence from the source (a sed expression), runs the
# test that should catch it, and restores the file. Every line must end in "caught".
#
#   bash scripts/check-mutations.sh
#   DRY=1 bash scripts/check-mutations.sh     # only check that every expression applies
#   ONLY=pattern bash scripts/check-mutations.sh   # only the mutations whose label matches
set -u
cd "$(dirname "$0")/.."

# The file a mutation is applied to, put back on every exit: an interrupted run (Ctrl-C, a
# killed shell) leaves no mutated source behind, and dist/ is rebuilt from the real sources.
MUTATED=''
restore() {
  if [ -n "$MUTATED" ] && [ -f "$MUTATED.orig" ]; then mv "$MUTATED.orig" "$MUTATED"; fi
  MUTATED=''
}
trap 'restore; [ -n "${DRY:-}" ] || npm run build --silent' EXIT
trap 'exit 130' INT TERM HUP

mutate() { # label, file, sed expression, test file [test name filter]
  local label=$1 file=$2 expr=$3 test=$4 filter=${5:-}
  if [ -n "${ONLY:-}" ] && [[ "$label" != *$ONLY* ]]; then return; fi
  if [ -n "${DRY:-}" ]; then
    # A dry run never touches the source: the expression is tried on a copy.
    local copy
    copy=$(mktemp)
    sed "$expr" "$file" > "$copy"
    if cmp -s "$file" "$copy"; then echo "NOT APPLIED  $label (the sed expression matched nothing)"; else echo "applies      $label"; fi
    rm -f "$copy"
    return
  fi
  MUTATED=$file
  cp "$file" "$file.orig"
  sed -i "$expr" "$file"
  if cmp -s "$file" "$file.orig"; then
    echo "NOT APPLIED  $label (the sed expression matched nothing)"
  elif npx vitest run "$test" ${filter:+-t "$filter"} >/dev/null 2>&1; then
    echo "MISSED       $label"
  else
    echo "caught       $label"
  fi
  restore
}

[ -n "${DRY:-}" ] || npm run build --silent
mutate "per-member lockout off" src/auth/lockout.ts \
  's/  if (policy.threshold === 0 || failures < policy.threshold) return 0;/  return 0;/' test/http/login.test.ts lock
mutate "100-failure cap (NIST) off" src/auth/lockout.ts \
  's/  if (failures >= MAX_CONSECUTIVE_FAILURES) return now + policy.resetSeconds \* 1000;//' test/unit/auth.test.ts
mutate "locked member answered differently" src/http/routes/login.ts \
  "s/  if (reason === 'suspended') return MESSAGES.memberSuspended;/  if (reason === 'locked') return 'too many failed attempts';\n  if (reason === 'suspended') return MESSAGES.memberSuspended;/" test/http/enumeration.test.ts
mutate "no dummy verification for unknown logins" src/members/credential-verifiers.ts \
  's/    return { member, ok: await this.passwords.verify(hash, password, share), source: .local. };/    return { member, ok: member ? await this.passwords.verify(hash, password, share) : false, source: "local" };/' \
  test/http/enumeration.test.ts
mutate "unknown user answered differently from a wrong key" src/http/route-kit.ts \
  "s/    throw new ApiError(MESSAGES.wrongApiKey);/    throw new ApiError((await context.accounts.find(user)) ? MESSAGES.wrongApiKey : 'unknown user');/" test/http/enumeration.test.ts
mutate "wrong keys not counted per address" src/auth/request-limits.ts \
  's/    await this.failures.consume(address).catch(() => {});//' test/http/limits.test.ts
mutate "common passwords accepted" src/auth/password-policy.ts \
  "s/  if (rules.refuseCommon && isCommonPassword(password)) return 'too-common';//" test/http/create.test.ts common
mutate "login allowance not spent atomically (no guard in the counting statement)" src/store/login-records-repository.ts \
  "s/        .where((eb) => eb.or(\[eb('exp_logins_mode', 'is', null), eb('exp_logins_left', '>', 0)\]))//; s/        .where('status', '=', 'A')$//" test/http/login.test.ts "exactly K"
mutate "query strings logged unredacted" src/http/logging.ts \
  's/  if (query < 0) return url;/  return url;/' test/http/list.test.ts
mutate "U+0000 passed to the store" src/http/params.ts \
  "s/    if (name.includes('\\\\0') || value.includes('\\\\0')) throw ApiError.invalid(name, REASONS.nul);//" test/http/wire.test.ts "any parameter name or value"
mutate "parameter count not limited" src/http/params.ts \
  "s/    if (++count > limits.maxParameters) throw new PayloadTooLarge('too many parameters');//" test/http/wire.test.ts "more parameters"
mutate "create modes read by object lookup (constructor)" src/members/lifecycle.ts \
  "s/  switch (mode) {/  return ({ '0': null, '1': 'S', '2': 'D' } as any)[mode];\n  switch (mode) {/" test/unit/lifecycle.test.ts
mutate "held PostgreSQL clients unguarded" src/store/dialects/postgres.ts \
  "s/  pool.on('connect', (client) => client.on('error', () => {}));//" test/store/outage.test.ts
mutate "outages answered 500" src/store/dialects/postgres.ts \
  "s/    if (NETWORK_CODES.has(code)) return 'unavailable';//" test/http/wire.test.ts "503 fast"
mutate "update of all members not in one transaction" src/store/member-updates.ts \
  's/  const trx = await connection.db.startTransaction().execute();/  const trx = Object.assign(connection.db, { commit: () => ({ execute: async () => {} }), rollback: () => ({ execute: async () => {} }) }) as any;/' test/http/update.test.ts "one transaction"
mutate "request timeout never enforced" src/app.ts \
  's/          connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(deps.requestTimeoutMs \/ 4))),/          connectionsCheckingInterval: 600_000,/' test/http/wire.test.ts "stops sending"
mutate "password hashing never refused (unbounded queue)" src/auth/hashing-gate.ts \
  's/    if (this.waiting < this.limits.queue) return;/    return;/; s/this.waiting >= this.limits.queue/false/g' test/http/limits.test.ts "hashing capacity"
mutate "foreign hashes kept after login (no upgrade to argon2id)" src/auth/passwords.ts \
  's/^        return true;$/        return false;/' test/import-export/import-export.test.ts "old passwords"
mutate "a foreign hash accepts any password" src/auth/legacy-hashes.ts \
  's/      return sameText(md5Crypt(password, hash), hash);/      return true;/' test/unit/legacy-hashes.test.ts
mutate "sweeps not elected (every server sweeps at once)" src/store/dialects/postgres.ts \
  's/        if (!rows\[0\]?.locked) return undefined;//' test/cli/many-instances.test.ts "one sweeper"
mutate "wrong keys counted per server" src/store/dialects/postgres.ts \
  's/    rateLimiter: (options) =>$/    rateLimiter: (options) => new RateLimiterMemory(options) ?? /' test/cli/many-instances.test.ts "wrong API keys"
mutate "an import rerun duplicates members (no upsert by login)" src/import-export/importer.ts \
  's/        if (id !== undefined) updates.push({ ...accepted, id });/        if (false as boolean) updates.push({ ...accepted, id: id! });/' test/import-export/import-export.test.ts "safe to run twice"
mutate "a dry run writes" src/import-export/importer.ts \
  's/      if (!options.dryRun) {/      if (true) {/' test/import-export/import-export.test.ts "safe to run twice"
mutate "request ids not passed on" src/app.ts \
  "s/    reply.header('x-request-id', request.id).header/    reply.header/" test/http/observability.test.ts "X-Request-Id"
mutate "a route missing from the OpenAPI document" src/http/routes/update.ts \
  "s/    getAndPost(UPDATE_SCHEMA),/    { GET: { ...getAndPost(UPDATE_SCHEMA).GET, hide: true }, POST: { ...UPDATE_SCHEMA, hide: true } },/" test/http/openapi.test.ts "every route"
# Audit round 3: mail, sessions, migrations (items 8, 13, 14 and the upstream ids).
mutate "mail templates read by a backtracking pattern" src/mail/mail.ts \
  's/body: templateParts(normalised.slice(lineEnd + 2))/body: normalised.slice(lineEnd + 2).split(\/(\\{\\{\\s*[^}]*?\\s*\\}\\})\/)/' test/http/mail.test.ts "hostile template"
mutate "e-mail addresses checked for one @ only (lists, names, comments pass)" src/members/fields.ts \
  's/ || NOT_IN_EMAIL.test(value)) return false;/) return false;/; s/  return parsed.length === 1 \&\&/  return parsed.length > 0 ||/' test/http/mail.test.ts "mail library"
mutate "mail sent to a stored address that reads as others" src/mail/mail-sender.ts \
  's/      if (!mail.vars.to \&\& !isEmail(own)) throw/      if (!isEmail) throw/' test/http/mail.test.ts "mails only the stored address"
mutate "a session alone reads any field of its member (no --session-fields)" src/http/routes/session.ts \
  's/      if (unreadable !== undefined) {/      if (unreadable === "any") {/' test/http/sessions.test.ts "the session alone"
mutate "/session/ drops record fields named like Object.prototype members" src/http/routes/session.ts \
  's/          if (!Object.hasOwn(answer, name)) /          if (!(name in answer)) /' test/http/sessions.test.ts "Object.prototype"
mutate "a migration stopped by an upstream id another account's member holds here" src/import-export/importer.ts \
  's/      const renumbered = options.keepIds \&\& options.renumberTaken ? /      const renumbered = false ? /' test/http/upstream-move.test.ts "links only|migrates 5,000|numbers here"
mutate "a member brought over at a login looked up by its upstream id" src/upstream/upstream-logins.ts \
  's/      return await this.members.findMemberByLogin(account.id, login);/      return await this.members.findMemberByLogin(account.id, String(answer.members[0]!.id));/' test/http/upstream-move.test.ts "links only|migrates 5,000|numbers here"
# Issue 31: members Deleted at the upstream come over Deleted; the /docs Curl box pastes whole.
mutate "a rerun of the migration moves a Deleted member's deletion time" src/store/member-import-export.ts \
  's/^      if (write.keepDeletionTimes) {$/      if (false) {/' test/http/upstream-deleted.test.ts "rerun changes nothing"
mutate "members Deleted upstream stamped with the run's time, however long ago" src/upstream/member-migration.ts \
  's/^        if (latest !== undefined) values.set(DELETED_TIME_COLUMN, new Date(latest).toISOString());$//' test/http/upstream-deleted.test.ts "latest time"
mutate "a member here deleted upstream in a gap longer than the retention left Active" src/upstream/member-migration.ts \
  's/^      if (older !== null) {$/      if (false) {/' test/http/upstream-deleted.test.ts "gap longer"
mutate "the /docs Curl box shows a body beginning with _ unquoted" src/http/openapi.ts \
  's/^    request.body = \/^\[-_\/\]\/.test(text) ? .*$/    request.body = text;/' test/http/openapi.test.ts "Curl box quotes"
# Audit round 2 (issue 13): each defence removed in turn.
mutate "a right key refused after others' wrong keys (limit checked before the key)" src/http/route-kit.ts \
  's/  const authenticated = await context.accounts.authenticate(user, apiKey);/  enforce(await context.keyGuard.admit(request.ip));\n  const authenticated = await context.accounts.authenticate(user, apiKey);/' test/http/limits.test.ts "wrong keys"
mutate "anonymous logins spend the account's keyed budget" src/http/routes/login.ts \
  's/      if (account \&\& !sendsIp) await admitAnonymousLogin(context, account, login, request.ip);/      if (account \&\& !sendsIp) await admitAccount(context, account);/; s/import { admitAnonymousLogin, apiHandler/import { admitAccount, admitAnonymousLogin, apiHandler/' test/http/limits.test.ts "keyed budget"
mutate "key scopes ignored" src/accounts/account.ts \
  "s/  return scope === 'all' || (scope === 'read' \&\& use === 'read') || (scope === 'login' \&\& use === 'login');/  return scope !== undefined \&\& use !== undefined;/" test/http/keys.test.ts
mutate "expired keys still accepted (no grace end)" src/accounts/accounts-service.ts \
  's/ \&\& (key.expiresAt === null || key.expiresAt > now)) match = key;/) match = key;/' test/store/accounts-service.test.ts
mutate "verify page tells unknown members apart" src/members/members-service.ts \
  "s/    if (!matches || !account || !member || effectiveState(member, now).status === 'D' || member.login !== login) return 'invalid';/    if (!account || !member) throw new Error('no such member');\n    if (!matches || effectiveState(member, now).status === 'D' || member.login !== login) return 'invalid';/" test/http/create.test.ts "verify link"
mutate "addresses compared as written (no canonical form, no /64)" src/auth/client-address.ts \
  "s/  if (address === null) return NO_ADDRESS;/  if (address !== 'never') return address ?? NO_ADDRESS;/" test/http/login.test.ts "however it is written"
mutate "no ceiling across addresses" src/auth/lockout.ts \
  's/  if (policy.threshold === 0 || failures < MAX_CONSECUTIVE_FAILURES) return 0;/  return 0;/' test/http/login.test.ts "100 failures in a row"
mutate "unknown logins cost less (no failure write)" src/members/login-service.ts \
  's/    if (!member || locked || !verified.ok) return this.recordFailure(attempt, locked);/    if (!member) return this.failed(attempt, "wrong-credentials");\n    if (locked || !verified.ok) return this.recordFailure(attempt, locked);/' test/http/login.test.ts "same store work"
mutate "search index shared by every account" src/store/dialects/sqlite-trigrams.ts \
  's/  const prefix = `a${accountId}x`;/  const prefix = "a0x";/' test/http/search-isolation.test.ts
mutate "hostile hash costs accepted" src/auth/legacy-hashes.ts \
  's/  const c = HASH_COST_CEILINGS;/  const c = HASH_COST_CEILINGS;\n  if (c) return undefined;/' test/unit/legacy-hashes.test.ts
mutate "foreign hashes verified on the event loop" src/auth/legacy-hashes.ts \
  's/  return pool.run({ hash, password });/  return verifyLegacyHash(hash, password);/' test/unit/legacy-hashes.test.ts "worker thread"
mutate "record fields not capped" src/http/routes/list.ts \
  's/  if (record.length > MAX_RECORD_FIELDS) throw/  if (record.length < 0) throw/' test/http/bounded-work.test.ts "128 fields"
mutate "profile: filters not capped" src/http/routes/list.ts \
  's/  if (fieldFilters.length > MAX_FIELD_FILTERS) throw/  if (fieldFilters.length < 0) throw/' test/http/bounded-work.test.ts "profile: filters"
mutate "pfdelete names not capped" src/http/routes/update.ts \
  's/  if (names.length > MAX_PFDELETE_NAMES) throw/  if (names.length < 0) throw/' test/http/bounded-work.test.ts "profile: filters"
mutate "profile bytes per update not capped" src/store/member-updates.ts \
  's/    if (setBytes \* matched > limits.maxProfileBytes) return/    if (setBytes < 0) return/' test/http/bounded-work.test.ts "64 MiB"
mutate "storage quota not held" src/store/member-updates.ts \
  's/    if (setBytes > 0 \&\& limits.storageLeft - setBytes \* matched < 0) return/    if (setBytes < 0) return/' test/http/bounded-work.test.ts "storage quota"
mutate "lists not capped per account" src/http/routes/list.ts \
  's/    const release = await context.lists.take(account.id);/    const release = () => {};/' test/cli/stalled-lists.test.ts
mutate "a stalled list never cut off" src/http/stall-watchdog.ts \
  's/        if (typeof socket?.destroy === .function.) socket.destroy();/        if (false) socket.destroy();/; s/        else reply.raw.destroy();/        else void reply;/' test/cli/stalled-lists.test.ts
mutate "overlong login passwords normalised and hashed" src/http/routes/login.ts \
  's/      if (isOverlongPassword(password)) throw/      if (password === undefined) throw/' test/http/unauthenticated-work.test.ts "1,024 characters before anything"
mutate "no small body limit for /login/ and /list/" src/app.ts \
  's/Math.min(deps.limits.bodyLimitBytes, SMALL_BODY_LIMIT_BYTES)/deps.limits.bodyLimitBytes/' test/http/unauthenticated-work.test.ts "64 KiB"
mutate "JSON nesting not bounded" src/http/body-parsers.ts \
  's/  if (nestingDepth(text) > MAX_JSON_DEPTH) throw/  if (nestingDepth(text) < 0) throw/' test/http/unauthenticated-work.test.ts "nested"
mutate "malformed multipart answered 500" src/http/params.ts \
  's/    throw new HttpError(400, MESSAGES.malformedBody, {}, { cause: error });/    throw error;/' test/http/wire.test.ts "malformed multipart"
mutate "a full disk hidden behind a failed rollback" src/store/dialects/sqlite-worker.ts \
  "s/  if (sql === 'rollback' \&\& !database!.inTransaction) return { changes: 0 };//" test/http/disk-full.test.ts
mutate "backslashes in login URLs" src/common/validate.ts \
  's/u007f\\\\]/u007f]/' test/unit/config.test.ts "login URLs"
mutate "no page headers on the verify page" src/http/page-security.ts \
  "s/    await scope.register(helmet, {/    if (scope) return routes(scope);\n    await scope.register(helmet, {/" test/http/create.test.ts "strict policy"
mutate "the demo key printed to the output stream" src/server.ts \
  's/  if (process.stderr.isTTY) {/  if (process.stderr) {/' test/cli/serve.test.ts "demo account"
# The layering (issue 14): an import the wrong way fails the architecture test.
mutate "the wire reaches into the store" src/http/replies.ts \
  "1s#^#import '../store/errors.js';\n#" test/architecture.test.ts

# Integrator and operator experience (issue 15).
mutate "/docs forms pre-filled with samples" src/http/openapi.ts \
  "s/          property.example = '';//; s/          property.examples = \[''\];//" test/browser/docs-try-out.test.ts "only what was filled in"
mutate "/docs sends empty inputs" src/http/openapi.ts \
  "s/      if (value === '') continue;//" test/browser/docs-try-out.test.ts "only what was filled in"
mutate "near misses dropped silently on /login/" src/http/routes/login.ts \
  "s/    if (meant) throw ApiError.unknown(name, meant);//" test/http/login.test.ts "never drops a near miss"
mutate "the client drops its base URL's path" src/client/index.ts \
  "s#    this.base = options.baseUrl.slice(0, end);#    this.base = new URL(options.baseUrl).origin;#" test/client/client.test.ts "path of its base URL"
mutate "network failures thrown bare" src/client/index.ts \
  "s/      throw new MemberApiNetworkError(url, error);/      throw error;/" test/client/client.test.ts "nothing answers"
mutate "access line without the answer's result" src/http/logging.ts \
  "s/      outcome.result = answer.result;//" test/cli/serve.test.ts "log an operator"
mutate "an import opens a missing file unchecked" src/import-export/commands.ts \
  "s/  const total = path === '-' ? 0 : importFileSize(path);/  const total = 0;/" test/cli/import-export.test.ts "before it starts"
mutate "a CSV header without logins goes on" src/import-export/files.ts \
  "s/      if (!names.includes('login')) {/      if (false) {/" test/cli/import-export.test.ts "before it starts"
mutate "a dry run writes its rejects file" src/import-export/commands.ts \
  "s/  const keepRejects = !options.dryRun;/  const keepRejects = true;/" test/cli/import-export.test.ts "before it starts"
mutate "the import bar follows the bytes read ahead" src/import-export/importer.ts \
  "s/        hashed(a.row);//" test/cli/import-export.test.ts "progress bar"
mutate "DATABASE_URL of another database taken for a file" src/config.ts \
  "s/|(?!\[A-Za-z\]\[A-Za-z0-9+.-\]\*:\/\/).+)\\$'/|.+)\$'/" test/cli/configuration.test.ts "database it does not support"

# Security, round 3: what an audit of the console, mail, reset and exports broke.
mutate "request paths trimmed by a quadratic expression" src/app.ts \
  "s#  return path.length > 1 ? trimTrailing(path, '/') : path;#  return path.length > 1 ? path.replace(/\\\\/+\$/, '') : path;#" test/http/bounded-work.test.ts "16 KiB"

# Audit round 3: files meant for spreadsheets (item 5).
mutate "CSV formulas: cells written raw to the export and the rejects file" src/import-export/files.ts \
  's/, cast: SPREADSHEET_CAST })/ })/g' test/import-export/import-export.test.ts "formulas"
mutate "CSV formulas: a quote-led value not quoted again (its quote lost on import)" src/import-export/spreadsheet-cells.ts \
  "s/^const FORMULA_START = \\/^'\\*\\[/const FORMULA_START = \\/^[/" test/import-export/import-export.test.ts "formulas"
mutate "CSV formulas: the import keeps the quote" src/import-export/files.ts \
  's/    const record = cells.map(fromSpreadsheetCell);/    const record = cells;/' test/import-export/import-export.test.ts "formulas"

# Audit round 3: files with secrets (item 12).
mutate "private files: made with the umask's mode" src/common/private-file.ts \
  's/^const OWNER_ONLY = 0o600;/const OWNER_ONLY = 0o666;/' test/cli/import-export.test.ts "only their owner"
mutate "private files: exports and rejects written over a file or through a link" src/common/private-file.ts \
  's/  return createWriteStream(path, { fd: createPrivateFile(path, what, choose) });/  return createWriteStream(path, { mode: 0o600 });/' test/cli/import-export.test.ts "only their owner"
mutate "private files: an import begins with its named rejects file taken" src/import-export/files.ts \
  's/  refuseTakenPath(named, REJECTS_FILE.what, REJECTS_FILE.choose);//' test/cli/import-export.test.ts "only their owner"
mutate "private files: a rerun's rejects written over the earlier run's" src/import-export/files.ts \
  's/  if (named === undefined) return freePath(byDefault);/  if (named === undefined) return byDefault;/' test/cli/import-export.test.ts "only their owner"
mutate "private files: a backup made by SQLite (the umask's mode)" src/import-export/commands.ts \
  "s/  closeSync(createPrivateFile(path, 'the backup file'));//" test/cli/import-export.test.ts "only their owner"
mutate "private files: the SQLite store made by better-sqlite3 (the umask's mode)" src/store/dialects/sqlite.ts \
  's/    createPrivateFileIfMissing(path);//' test/cli/import-export.test.ts "SQLite store"
# Audit round 3: member data at the terminal (item 11).
mutate "terminal: control characters in member data written raw" src/common/terminal-text.ts \
  's/  return text.replace(TERMINAL_CONTROLS, .*/  return text;/' test/cli/member-commands.test.ts "escape sequences"
mutate "terminal: JSON leaves DEL, C1 and bidi controls raw" src/common/terminal-text.ts \
  's/  return escapeJsonText(JSON.stringify(value));/  return JSON.stringify(value);/' test/cli/member-commands.test.ts "escape sequences"
mutate "terminal: the command line's errors written raw" src/main.ts \
  's/    writeLines(process.stderr, \[`member-api: \(.*\)`\]);/    process.stderr.write(`member-api: \1\\n`);/' test/cli/import-export.test.ts "control characters"

mutate "an operator with a password handed a link" src/operators/operators-service.ts \
  "s/    if (operator.hasPassword) return { operator };//" test/store/operators.test.ts "outstanding link"
mutate "an operator's earlier link outlives a new one" src/store/operator-repository.ts \
  "s/      this.build.deleteFrom('operator_links').where('operator_id', '=', operatorId),/      this.build.deleteFrom('operator_links').where('operator_id', '=', -1),/" test/store/operators.test.ts "outstanding link"
mutate "removal from one account leaves the operator's links" src/store/operator-repository.ts \
  "s/^            build.deleteFrom('operator_links').where('operator_id', '=', id),/            build.deleteFrom('operator_links').where('operator_id', '=', -1),/" test/store/operators.test.ts "outstanding link"
mutate "an unknown operator e-mail skips the verification" src/operators/operators-service.ts \
  "s/    const credentials = await this.store.credentials(email);/    const credentials = await this.store.credentials(email);\n    if (!credentials) return { kind: 'refused' };/" test/store/operators.test.ts "alike after the same work"
mutate "overlong operator passwords hashed at sign-in" src/operators/operators-service.ts \
  "s/    if (isOverlongPassword(password)) return { kind: 'refused' };//" test/store/operators.test.ts "alike after the same work"
mutate "common operator passwords accepted" src/operators/operators-service.ts \
  "s/      return 'This password is one of the most common ones.*/      return undefined;/" test/store/operators.test.ts "members’ rules"
mutate "a console form's new field may name any parameter" src/console/forms.ts \
  "s/  if (!isProfileFieldName(name) || isUpdateParameter(name))$/  if (false as boolean)/" test/http/console.test.ts "edit form"
mutate "console sign-in reads an 8 MiB body" src/console/sections/session.ts \
  "s#  scope.post('/sign-in', { bodyLimit: FORM_BODY_LIMIT_BYTES }, #  scope.post('/sign-in', #" test/http/console.test.ts "forms small"
mutate "reset links outlive a credential change" src/store/member-updates.ts \
  "s/    await endResetLinksOf(trx, accountId, matched);//" test/http/credential-changes.test.ts "every outstanding reset link"
mutate "reset links outlive an expiry the sweep writes down" src/store/member-updates.ts \
  "s/^    await endResetLinksOf($/    await (async (..._: unknown[]) => {})(/" test/http/credential-changes.test.ts "through an import, an expiry"
mutate "reset links outlive the login that used up an allowance" src/store/login-records-repository.ts \
  "s/      if (updated.status !== 'A') await endResetLinksOf(trx, accountId, \[memberId\]);//" test/http/credential-changes.test.ts "through an import, an expiry"
mutate "reset links outlive an import's new address" src/store/member-import-export.ts \
  "s/    await endResetLinksOf(trx, accountId, \[...new Set(\[...ending, ...newAddress\])\]);//" test/http/credential-changes.test.ts "through an import, an expiry"
mutate "a reset link used while an expiration is due, before the sweep" src/members/password-resets.ts \
  "s/    if (effectiveState(member, now).status !== member.status) return { kind: 'expired', account, member };//" test/http/credential-changes.test.ts "through an import, an expiry"
mutate "a new address keeps the old one's verification" src/store/member-updates.ts \
  "s/  if (values.email !== undefined) set.email_verified_at = .*//" test/http/credential-changes.test.ts "clears a verification"
mutate "verify codes not bound to the address" src/members/verify-link.ts \
  "s/JSON.stringify(\[accountName, memberId, login, foldKey(email)\])/JSON.stringify([accountName, memberId, login, foldKey(email).slice(0, 0)])/" test/http/credential-changes.test.ts "clears a verification"
mutate "redirect URLs kept as given" src/common/validate.ts \
  "s/  return encoded.length <= MAX_URL_LENGTH ? encoded : undefined;/  return value;/" test/http/password-reset.test.ts "header-safe"
mutate "the server's terminal log shows client data raw" src/http/logging.ts \
  "s/prettify(shown(JSON.parse(line)) as Record<string, unknown>)/prettify(JSON.parse(line) as Record<string, unknown>)/" test/unit/terminal-log.test.ts
mutate "the server's JSON log leaves C1 and bidi controls raw" src/http/logging.ts \
  "s/  return { write: (line: string) => void out.write(escapeJsonText(line)) };/  return { write: (line: string) => void out.write(line) };/" test/unit/terminal-log.test.ts "JSON log"

mutate "a misspelt option refused as a missing required one" src/main.ts \
  "s/^  reportUnknownOptionsFirst(program);$//" test/cli/command-line.test.ts "misspelt"
mutate "a command run in the wrong folder makes a stray store" src/cli/cli-support.ts \
  "s/create: options.createStore ?? false/create: true/" test/cli/command-line.test.ts "makes none"
mutate "a missing account's store not named" src/cli/cli-support.ts \
  's/`no account "${name}" in the store ${describeStore(loadConfig().databaseUrl)}`/`no account "${name}"`/' test/cli/command-line.test.ts "is named"
mutate "a set-up link's assumed address not said" src/cli/operator-commands.ts \
  "s/, ...(note ? { note } : {})//g" test/cli/command-line.test.ts "set-up links"
mutate "webhook deliveries' attempts printed as [object Object]" src/cli/webhook-commands.ts \
  "s/^      writeLines(process.stdout, \[...deliveryLines(deliveries), ...(cut ? \['', cut\] : \[\])\]);$/      print({ deliveries }, false);/" test/cli/webhook-commands.test.ts "tables"
mutate "a cut member list not said" src/cli/member-commands.ts \
  "s/cut: cutNote(rows.length, total, 'members', { which: 'first', maxLimit: MAX_LIMIT })/cut: undefined/" test/cli/member-commands.test.ts "tables"
mutate "webhook names by number only" src/cli/webhook-commands.ts \
  "s/^  return (await services.webhooks.endpoints.named(account, reference))?.id;$/  return undefined;/" test/cli/webhook-commands.test.ts "names a receiver"
mutate "webhook names not checked" src/webhooks/webhooks-service.ts \
  "s/^  if (ENDPOINT_NAME.test(name)) return undefined;$/  return undefined;/" test/cli/webhook-commands.test.ts "names a receiver"

# Code written for the hosted original runs unchanged (GET, codes in either case, aliases).
mutate "GET refused on every endpoint but /list/" src/http/route-kit.ts \
  "s/  for (const method of \['GET', 'POST'\] as const) app.route(/  for (const method of (url === '\/api2\/list\/' ? ['GET', 'POST'] as const : ['POST'] as const)) app.route(/" test/http/hosted-code.test.ts "by GET"
mutate "an account's --get-writes off ignored" src/http/route-kit.ts \
  "s/  if (request.method !== 'GET' || !account || account.settings.getWrites) return;/  return;/" test/http/hosted-code.test.ts "refuses GET"
mutate "credentials in URLs not counted" src/app.ts \
  "s/    if (hasSecretInQuery(request.url)) metrics.countCredentialsInUrl(endpoint);//" test/http/hosted-code.test.ts "by GET"
mutate "one-letter codes read only in upper case" src/http/decoders.ts \
  "s/  const code = value.toUpperCase();/  const code = value;/" test/http/hosted-code.test.ts "one-letter codes"
mutate "login, email and password not taken on /create/" src/http/routes/create.ts \
  "s/  const alias = params.nonEmpty(plain);/  const alias = undefined as string | undefined;/" test/http/hosted-code.test.ts "takes login, email and password"
mutate "two different values of one create parameter, one silently kept" src/http/routes/create.ts \
  "s/  if (documented !== undefined \&\& alias !== undefined \&\& documented !== alias)$/  if (false as boolean)/" test/http/hosted-code.test.ts "takes login, email and password"
mutate "a password-like profile field kept in clear" src/http/decoders.ts \
  "s/    if (looksLikePassword(name)) throw ApiError.invalid(name, REASONS.passwordLike(.*//" test/http/hosted-code.test.ts "takes login, email and password"
mutate "a forwarded IP list refused" src/http/decoders.ts \
  "s/  const address = value.includes(',')$/  const address = false as boolean/" test/http/hosted-code.test.ts "forwarded list"
mutate "the original's FAIL text never answered" src/http/routes/login.ts \
  "s/  return WRONG_LOGIN_OR_PASSWORD\[account?.settings.messages ?? 'short'\];/  return MESSAGES.wrongLoginOrPassword;/" test/http/hosted-code.test.ts "original’s words"
mutate "--password-check off ignored" src/http/decoders.ts \
  "s/refuseCommon: settings.passwordCheck === 'common'/refuseCommon: true/" test/http/hosted-code.test.ts "common password"

# Round 4 of the security audit (docs/security.md).
mutate "a console invitation hands out a link for an operator that exists" src/operators/operators-service.ts \
  "s/    if (invited.isNew) return { kind: 'link'/    if (true as boolean) return { kind: 'link'/" test/http/console-operators.test.ts "never hands"
mutate "a right operator password taken without looking at the lock" src/store/operator-repository.ts \
  "s/        .where('locked_until', '<=', now)$//" test/http/console-operators.test.ts "failures sent at once"
mutate "a console mail server may be on a private address" src/console/sections/settings.ts \
  "s/      if (blocked) return refused('smtp-url', blocked);//" test/http/console-mail.test.ts "loopback or private"
mutate "the hashing room not shared (a full room refuses every newcomer)" src/auth/hashing-gate.ts \
  "s/    const victim = this.fullest(share);/    const victim = undefined as { account: string; client: string } | undefined;/" test/http/limits.test.ts "fairly"
mutate "a member's own deletion keeps its address" src/store/member-erasure.ts \
  "s/^          email: '',$//" test/http/member-pages-security.test.ts "erases"
mutate "an unknown account's pages answer 404" src/pages/page-actions.ts \
  "s/  return ACCOUNT_NAME.test(name) ? { id: 0, name, createdAt: 0, settings: DEFAULT_SETTINGS } : undefined;/  return undefined;/" test/http/member-pages-security.test.ts "no account has"
mutate "a bulk confirmation changes whatever the filter finds now" src/store/member-updates.ts \
  "s/  if (expected \&\& (expected.count/  if (false \&\& (expected.count/" test/http/console.test.ts "exactly the members"

# (dist/ is rebuilt from the real sources on exit: see the trap above.)
