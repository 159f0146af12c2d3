#!/usr/bin/env bash
# Runs the Dockerfile's steps without a container engine (there is none on the CI machine), to
# prove that the image it describes builds and starts: each stage in a clean folder of its own,
# its COPY, WORKDIR, ENV and RUN instructions as written, as an unprivileged user; then the
# last stage's CMD, with its ENV, as that user, until its HEALTHCHECK passes and the API
# answers a create and a login with the demo account's key.
#
# What differs from a real build, and why: the base image is this machine's Node.js (the
# image's is node:20 too), with this machine's npm settings; absolute paths (/app, /data) become folders under a temporary root;
# the last stage's RUN lines before USER are root's set-up of the data folder (mkdir, chown),
# done here by creating the folder; the user is `nobody` rather than the image's `node`.
#
#   scripts/container-steps.sh            (run as root, as CI does; or as any user)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
DOCKERFILE=$REPO/Dockerfile

ROOT=$(mktemp -d /tmp/member-api-image.XXXXXX)
chmod 755 "$ROOT"
CONTEXT=$ROOT/context
mkdir -p "$CONTEXT"
# The build context: the committed files (what a clean clone has), minus .dockerignore.
git -C "$REPO" ls-files -z | while IFS= read -r -d '' file; do
  [[ -e "$REPO/$file" ]] || continue
  skip=no
  while read -r pattern; do
    [[ -z $pattern || $pattern == \#* ]] && continue
    [[ $file == "$pattern" || $file == "$pattern"/* ]] && skip=yes
  done < "$REPO/.dockerignore"
  [[ $skip == yes ]] && continue
  mkdir -p "$CONTEXT/$(dirname "$file")"
  cp -p "$REPO/$file" "$CONTEXT/$file"
done

# The unprivileged user: `nobody` when this runs as root, else whoever runs it.
if [[ $(id -u) == 0 ]]; then
  chown -R nobody: "$ROOT"
  as_user() { setpriv --reuid=nobody --regid=nogroup --clear-groups --reset-env env HOME="$ROOT/home" PATH="$PATH" "$@"; }
else
  as_user() { env HOME="$ROOT/home" "$@"; }
fi
as_user mkdir -p "$ROOT/home"
# This machine's npm settings (its registry, its CA file, where Node's headers are for native
# builds: there is no internet here to fetch them) apply to the steps as they do to a build here.
if [[ -f $HOME/.npmrc ]]; then
  cp "$HOME/.npmrc" "$ROOT/home/.npmrc"
  [[ $(id -u) == 0 ]] && chown nobody: "$ROOT/home/.npmrc"
fi

stage=0
declare -A STAGE_DIR=()
declare -a ENVS=()
user_set=no
workdir=/
cmd=''
health=''

# /app in stage N is $ROOT/stage-N/app; /data (a volume, shared) is $ROOT/data.
path_in() { # stage path
  local path=$2
  if [[ $path == /data* ]]; then echo "$ROOT$path"; else echo "$ROOT/stage-$1$path"; fi
}
map_paths() { # stage text: every absolute /app or /data path in a command, mapped
  local text=$2
  text=${text//\/data/$ROOT/data}
  text=${text//\/app/$ROOT/stage-$1/app}
  echo "$text"
}

# Instructions, with continuation lines joined.
mapfile -t LINES < <(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$DOCKERFILE" | grep -Ev '^\s*(#|$)')
for line in "${LINES[@]}"; do
  instruction=${line%% *}
  args=${line#* }
  case $instruction in
    FROM)
      stage=$((stage + 1))
      [[ $args =~ [Aa][Ss]\ +([A-Za-z0-9_-]+) ]] && STAGE_DIR[${BASH_REMATCH[1]}]=$stage
      ENVS=(); user_set=no; workdir=/
      as_user mkdir -p "$ROOT/stage-$stage"
      echo "== stage $stage: FROM $args"
      ;;
    WORKDIR)
      workdir=$args
      as_user mkdir -p "$(path_in $stage "$workdir")"
      ;;
    ENV)
      read -r -a pairs <<< "$args"
      for pair in "${pairs[@]}"; do ENVS+=("$(map_paths $stage "$pair")"); done
      ;;
    COPY)
      from=''
      if [[ $args == --from=* ]]; then from=${args%% *}; from=${from#--from=}; args=${args#* }; fi
      read -r -a parts <<< "$args"
      target=${parts[-1]}
      unset 'parts[-1]'
      [[ $target == /* ]] || target="$workdir/$target"
      target=$(path_in $stage "$target")
      for source in "${parts[@]}"; do
        if [[ -n $from ]]; then
          source_path=$(path_in "${STAGE_DIR[$from]}" "$source")
        else
          source_path=$CONTEXT/$source
        fi
        if [[ $target == */ ]]; then as_user mkdir -p "$target"; fi
        echo "   COPY ${from:+--from=$from }$source"
        as_user cp -a "$source_path" "$target"
      done
      ;;
    RUN)
      if [[ $stage -gt 1 && $user_set == no && $args == *chown* ]]; then
        echo "   RUN (root's set-up of the data folder): $args"
        as_user mkdir -p "$ROOT/data"
        continue
      fi
      echo "   RUN $args"
      (cd "$(path_in $stage "$workdir")" && as_user env "${ENVS[@]}" bash -euo pipefail -c "$(map_paths $stage "$args")")
      ;;
    USER) user_set=yes ;;
    CMD) cmd=$args ;;
    HEALTHCHECK) health=${args#*CMD } ;;
    VOLUME | EXPOSE | ARG | LABEL) ;;
    *) echo "container-steps: unknown instruction $instruction" >&2; exit 1 ;;
  esac
done

# Start the image's CMD as it would run: its ENV, its WORKDIR, the unprivileged user, on a free port.
app=$(path_in $stage "$workdir")
PORT=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
json_to_args() { node -e 'for (const a of JSON.parse(process.argv[1])) console.log(a)' "$1"; }
mapfile -t CMD_ARGS < <(json_to_args "$cmd")
mapfile -t HEALTH_ARGS < <(json_to_args "$health")
echo "== starting: ${CMD_ARGS[*]} (PORT=$PORT)"
(cd "$app" && as_user env "${ENVS[@]}" PORT="$PORT" HOST=127.0.0.1 "${CMD_ARGS[@]}" > "$ROOT/server.log" 2>&1) &
server=$!
trap 'kill $server 2>/dev/null || true; pkill -u nobody -f "bin/member-api.js serve" 2>/dev/null || true' EXIT

healthy=no
for _ in $(seq 1 60); do
  if (cd "$app" && as_user env "${ENVS[@]}" PORT="$PORT" "${HEALTH_ARGS[@]}"); then healthy=yes; break; fi
  sleep 0.5
done
if [[ $healthy != yes ]]; then
  echo "container-steps: the HEALTHCHECK never passed; the server said:" >&2
  cat "$ROOT/server.log" >&2
  exit 1
fi
echo "== HEALTHCHECK passed"

key=$(sed -n 's/.*api_key=\([^ ]*\).*/\1/p' "$ROOT/data/demo-api-key")
created=$(curl -sS -d user=demo -d "api_key=$key" -d _login=container -d _email=c@example.com -d _password=container-password "http://127.0.0.1:$PORT/api2/create/")
login=$(curl -sS -d user=demo -d login=container -d password=container-password "http://127.0.0.1:$PORT/api2/login/")
echo "   create: $created"
echo "   login:  $login"
[[ $created == '{"result":"OK"'* && $login == '{"result":"OK"'* ]] || { echo "container-steps: the API did not answer OK" >&2; exit 1; }
[[ -f $ROOT/data/members.db ]] || { echo "container-steps: the store is not in the data volume" >&2; exit 1; }
owner=$(stat -c %U "$ROOT/data/members.db")
echo "== the image's steps build and start: the store is in the volume, owned by $owner; the server ran as $(ps -o user= -p "$(pgrep -f "$ROOT.*bin/member-api.js serve" | head -n 1)" 2>/dev/null || echo "$owner")"
kill "$server" 2>/dev/null || true
wait "$server" 2>/dev/null || true
rm -rf "$ROOT"
