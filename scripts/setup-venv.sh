#!/usr/bin/env bash
# setup-venv.sh: creates .venv with the Python test packages pinned in
# tests/requirements.txt. Idempotent: installs only when that file changes.
# The stamp is one file per hash of the requirements, so that checkouts
# sharing one venv (a symlink) with different requirements do not reinstall
# in turn; the venv is created only when missing (`python -m venv` cannot
# re-create one through a symlink).
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv
want="$(sha256sum tests/requirements.txt | cut -d' ' -f1)"
stamp="$venv/.requirements-$want"
if [[ -f "$stamp" && -x "$venv/bin/python" ]]; then
  exit 0
fi
python="${PYTHON:-python3}"
echo "setup-venv: installing test packages into $venv" >&2
if [[ ! -x "$venv/bin/python" ]]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt
touch "$stamp"
