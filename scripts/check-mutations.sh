#!/usr/bin/env bash
# Proves that the reliability and security tests fail when the behaviour they guard is
# removed: each line below removes one defence from the source (a sed expression), runs the
# test that should catch it, and restores the file. Every line must end in "caught".
#
#   bash scripts/check-mutations.sh
set -u
cd "$(dirname "$0")/.."

mutate() { # label, file, sed expression, test file [test name filter]
  local label=$1 file=$2 expr=$3 test=$4 filter=${5:-}
  cp "$file" "$file.orig"
  sed -i "$expr" "$file"
  if cmp -s "$file" "$file.orig"; then
    echo "NOT APPLIED  $label (the sed expression matched nothing)"
  else
    if npx vitest run "$test" ${filter:+-t "$filter"} >/dev/null 2>&1; then
      echo "MISSED       $label"
    else
      echo "caught       $label"
    fi
  fi
  mv "$file.orig" "$file"
}

npm run build --silent
mutate "per-member lockout off" src/auth/lockout.ts \
  's/  if (policy.threshold === 0 || failures < policy.threshold) return 0;/  return 0;/' test/http/login.test.ts lock
mutate "100-failure cap (NIST) off" src/auth/lockout.ts \
  's/  if (failures >= MAX_CONSECUTIVE_FAILURES) return now + policy.resetSeconds \* 1000;//' test/unit/auth.test.ts
mutate "locked member answered differently" src/http/routes/login.ts \
  's/  locked: MESSAGES.wrongLoginOrPassword,/  locked: "too many failed attempts",/' test/http/enumeration.test.ts
mutate "no dummy verification for unknown logins" src/members/login-service.ts \
  's/const passwordOk = await this.passwords.verify(member?.passwordHash ?? (await this.dummyHash), command.password);/const passwordOk = member ? await this.passwords.verify(member.passwordHash, command.password) : false;/' \
  test/http/enumeration.test.ts
mutate "unknown user answered differently from a wrong key" src/http/route-kit.ts \
  "s/    throw new ApiError(MESSAGES.wrongApiKey);/    throw new ApiError((await context.accounts.find(user)) ? MESSAGES.wrongApiKey : 'unknown user');/" test/http/enumeration.test.ts
mutate "wrong keys not counted per address" src/auth/request-limits.ts \
  's/    await this.failures.consume(address).catch(() => {});//' test/http/limits.test.ts
mutate "common passwords accepted" src/auth/password-policy.ts \
  "s/  if (isCommonPassword(password)) return 'too-common';//" test/http/create.test.ts common
mutate "login allowance not spent atomically (no guard in the counting statement)" src/store/member-repository.ts \
  "s/        .where((eb) => eb.or(\[eb('exp_logins_mode', 'is', null), eb('exp_logins_left', '>', 0)\]))//; s/        .where('status', '=', 'A')$//" test/http/login.test.ts "exactly K"
mutate "query strings logged unredacted" src/http/logging.ts \
  's/  if (query < 0) return url;/  return url;/' test/http/list.test.ts
mutate "U+0000 passed to the store" src/http/params.ts \
  "s/    if (name.includes('\\\\0') || value.includes('\\\\0')) throw ApiError.invalid(name);//" test/http/wire.test.ts "any parameter name or value"
mutate "parameter count not limited" src/http/params.ts \
  "s/    if (++count > limits.maxParameters) throw new PayloadTooLarge('too many parameters');//" test/http/wire.test.ts "more parameters"
mutate "create modes read by object lookup (constructor)" src/members/lifecycle.ts \
  "s/  switch (mode) {/  return ({ '0': null, '1': 'S', '2': 'D' } as any)[mode];\n  switch (mode) {/" test/unit/lifecycle.test.ts
mutate "held PostgreSQL clients unguarded" src/store/dialects/postgres.ts \
  "s/  pool.on('connect', (client) => client.on('error', () => {}));//" test/store/outage.test.ts
mutate "outages answered 500" src/store/dialects/postgres.ts \
  "s/    if (NETWORK_CODES.has(code)) return 'unavailable';//" test/http/wire.test.ts "503 fast"
mutate "update of all members not in one transaction" src/store/member-updates.ts \
  's/    return await connection.db.transaction().execute(async (trx) => {/    return await connection.db.connection().execute(async (trx: any) => {/' test/http/update.test.ts "one transaction"
mutate "request timeout never enforced" src/app.ts \
  's/          connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(deps.requestTimeoutMs \/ 4))),/          connectionsCheckingInterval: 600_000,/' test/http/wire.test.ts "stops sending"
mutate "password hashing never refused (unbounded queue)" src/auth/hashing-gate.ts \
  's/this.waiters.length >= this.limits.queue/false/g' test/http/limits.test.ts "hashing capacity"
mutate "foreign hashes kept after login (no upgrade to argon2id)" src/auth/passwords.ts \
  's/^        return true;$/        return false;/' test/transfer/import-export.test.ts "old passwords"
mutate "a foreign hash accepts any password" src/auth/legacy-hashes.ts \
  's/      return sameText(md5Crypt(password, hash), hash);/      return true;/' test/unit/legacy-hashes.test.ts
mutate "sweeps not elected (every server sweeps at once)" src/store/dialects/postgres.ts \
  's/        if (!rows\[0\]?.locked) return undefined;//' test/cli/many-instances.test.ts "one sweeper"
mutate "wrong keys counted per server" src/store/dialects/postgres.ts \
  's/    rateLimiter: (options) =>$/    rateLimiter: (options) => new RateLimiterMemory(options) ?? /' test/cli/many-instances.test.ts "wrong API keys"
mutate "an import rerun duplicates members (no upsert by login)" src/transfer/importer.ts \
  's/        if (id !== undefined) updates.push({ ...accepted, id });/        if (false as boolean) updates.push({ ...accepted, id: id! });/' test/transfer/import-export.test.ts "safe to run twice"
mutate "a dry run writes" src/transfer/importer.ts \
  's/      if (!options.dryRun) {/      if (true) {/' test/transfer/import-export.test.ts "safe to run twice"
mutate "request ids not passed on" src/app.ts \
  "s/    reply.header('x-request-id', request.id);//" test/http/observability.test.ts "X-Request-Id"
mutate "a route missing from the OpenAPI document" src/http/routes/update.ts \
  "s/    { schema: UPDATE_SCHEMA },/    { schema: { ...UPDATE_SCHEMA, hide: true } },/" test/http/openapi.test.ts "every route"
# The tests rebuilt dist/ from mutated sources: build it from the real ones.
npm run build --silent
