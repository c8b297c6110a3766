#!/usr/bin/env bash
# Exit 0 when MediaMTX's WebRTC listener answers HTTP at 127.0.0.1:8889 (a matrix's health command;
# any HTTP status will do: the listener is up).
set -euo pipefail
curl -s -o /dev/null --max-time 2 http://127.0.0.1:8889/
