#!/usr/bin/env bash
# Lints proto/ and checks it for breaking changes (buf, FILE rules). Needs no network: buf
# ships the well-known types, and the baseline is taken from the local git history with
# `git archive`, not through buf's own git input (which clones).
#
# Baseline, the first that applies:
#   PROTO_BASE_REF=<ref>   explicit (CI can pass the pull request's base commit)
#   on a branch other than main: main (or origin/main)
#   on main: HEAD~1 (the working tree is compared, so uncommitted edits count too)
# The breaking check is skipped, with a note, when that ref is not in the clone (first
# commit, shallow clone) or has no proto/ yet (the commit that introduces it).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
buf="$root/node_modules/.bin/buf"
[ -x "$buf" ] || { echo "check-proto: $buf not found; run npm install" >&2; exit 1; }

echo "check-proto: buf lint proto"
"$buf" lint proto

have() { git rev-parse --verify --quiet "$1^{commit}" >/dev/null 2>&1; }

base="${PROTO_BASE_REF:-$("$root/scripts/base-ref.sh")}"

if ! have "$base"; then
  echo "check-proto: $base is not in this clone (first commit or shallow clone); breaking check skipped"
  exit 0
fi
if ! git cat-file -e "$base:proto/buf.yaml" 2>/dev/null; then
  echo "check-proto: $base has no proto/ module yet; breaking check skipped"
  exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
git archive "$base" proto | tar -x -C "$tmp"
echo "check-proto: buf breaking proto --against $base:proto"
"$buf" breaking proto --against "$tmp/proto"
echo "check-proto: ok"
