#!/usr/bin/env bash
# Runs the Python client's tests as CI does: a throwaway venv on Debian's python3, the package installed offline.
#
# SENDMOCK_BIN (optional): the sendmock executable the tests start; default, a wrapper that runs this
# repository's dist/bin/sendmock.js with node (build it first: npm run build). Set CI=true to make a missing
# server a failure instead of a skip.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
python=/usr/bin/python3
work="$(mktemp -d "${TMPDIR:-/tmp}/sendmock-py-ci.XXXXXX")"
trap 'rm -rf "$work"' EXIT

"$python" -m venv --system-site-packages "$work/venv"
# Built from a copy: an in-tree build would leave build/ and *.egg-info in the repository.
mkdir "$work/package"
cp -R "$here/pyproject.toml" "$here/README.md" "$here/src" "$work/package/"
"$work/venv/bin/pip" install --quiet --no-build-isolation --no-index "$work/package"

if [[ -z "${SENDMOCK_BIN:-}" ]]; then
  cli="$repo/dist/bin/sendmock.js"
  if [[ -f "$cli" ]] && command -v node >/dev/null; then
    printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$(command -v node)" "$cli" > "$work/sendmock"
    chmod +x "$work/sendmock"
    export SENDMOCK_BIN="$work/sendmock"
  else
    echo "run-tests.sh: no SENDMOCK_BIN and no $cli with node: tests that need a server will skip (fail with CI=true)" >&2
  fi
fi
echo "run-tests.sh: SENDMOCK_BIN=${SENDMOCK_BIN:-<none>}"

export PYTHONDONTWRITEBYTECODE=1
cd "$repo"
status=0
"$work/venv/bin/python" -m pytest clients/python/tests -n 2 -p no:cacheprovider "$@" | tee "$work/output" || status=$?
if [[ $status -ne 0 ]]; then
  [[ $status -eq 5 ]] && echo "run-tests.sh: no test ran" >&2
  exit "$status"
fi
# Every test skipped (no server) is exit 0 to pytest, but nothing was tested.
if ! tail -n 1 "$work/output" | grep -q ' passed'; then
  echo "run-tests.sh: no test passed" >&2
  exit 1
fi
