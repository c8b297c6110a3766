#!/usr/bin/env bash
# Exit 0 when SRS answers on its HTTP API at 127.0.0.1:1985 (a matrix's health command).
set -euo pipefail
curl -sf --max-time 2 http://127.0.0.1:1985/api/v1/versions >/dev/null
