#!/usr/bin/env bash
# Prints the commit a breaking-change check compares the working tree with, when no base was
# given explicitly (scripts/check-proto.sh, scripts/internal-contracts.ts): on a branch other
# than main, main (or origin/main); on main, HEAD~1. Run in the repository to check.
set -euo pipefail
have() { git rev-parse --verify --quiet "$1^{commit}" >/dev/null 2>&1; }
branch="$(git rev-parse --abbrev-ref HEAD 2>/dev/null || echo HEAD)"
if [ "$branch" != "main" ] && have main; then echo main
elif [ "$branch" != "main" ] && have origin/main; then echo origin/main
else echo HEAD~1
fi
