#!/usr/bin/env bash
# setup-venv.sh: creates .venv with the Python test packages pinned in
# tests/requirements.txt. Idempotent: reinstalls only when that file changes.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv
stamp="$venv/.requirements.sha256"
want="$(sha256sum tests/requirements.txt | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$venv/bin/python" ]]; then
  exit 0
fi
python="${PYTHON:-python3}"
echo "setup-venv: installing test packages into $venv" >&2
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt
echo "$want" > "$stamp"
