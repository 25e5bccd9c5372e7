#!/usr/bin/env bash
# The partners' clients, proved (docs/partners.md; called by .ci/run, runnable alone):
#  1. a live server on a free port with a scratch data directory (embedded database), and an
#     organization, stewardship of two sandbox institutions and a sandbox key made with the CLI;
#  2. `npm run clients:partners` against it: Java, Python, C#, Go and TypeScript clients from the
#     document it serves, failing on any mis-generation finding;
#  3. the Java client compiled with Maven and run against the server (test/partners/java: the
#     partner flow, and a stub server's extra property and new enum values);
#  4. the Python client run against the server (test/partners/python: the same flow, and the
#     stub's additions), with the pydantic 2, urllib3 and python-dateutil already installed, or
#     Debian's packages when they are missing;
#  5. the TypeScript client compiled with tsc --strict.
# The Go and C# clients are generated and checked, not compiled (no Go or .NET toolchain here).
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)
step() { printf '\n--- %s (%ss) ---\n' "$*" "$(($(date +%s) - started))"; }

step "Java and Maven"
if ! command -v java >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null
fi
java -version 2>&1 | sed -n 1p
mvn -v 2>&1 | sed -n 1p

step "A server on a free port, with a scratch data directory"
npm run -s build >/dev/null
scratch=$(mktemp -d)
port=$(node -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
origin="http://127.0.0.1:$port"
export SVC_DATA_DIR="$scratch/data" DATABASE_URL=""
PORT="$port" HOST=127.0.0.1 SVC_LOG_LEVEL=warn node dist/server/main.js >"$scratch/server.log" 2>&1 &
server=$!
stop_server() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -rf "$scratch"
}
trap stop_server EXIT
for _ in $(seq 1 180); do
  curl -fsS "$origin/readyz" >/dev/null 2>&1 && break
  if ! kill -0 "$server" 2>/dev/null; then cat "$scratch/server.log"; echo "The server exited before it was ready." >&2; exit 1; fi
  sleep 1
done
curl -fsS "$origin/readyz" >/dev/null || { cat "$scratch/server.log"; echo "The server was not ready in 180 s." >&2; exit 1; }
echo "listening at $origin"

# De Anza College (the course's institution) and UC Berkeley (the equivalency's target), both seeded.
source_institution=inst_113333
target_institution=inst_110635
npm run -s cli -- orgs create --slug partner-ci --name "Partner client CI" >/dev/null
npm run -s cli -- orgs grant --org partner-ci --env sandbox --institution "$source_institution,$target_institution"
key=$(npm run -s cli -- --json keys create --org partner-ci --env sandbox --name "partner client CI" |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).key))')

step "Generate the five clients and check them (npm run clients:partners)"
npm run -s clients:partners -- --server "$origin"

step "Java: compile the client with Maven and run it against the server"
PARTNERS_API="$origin/api/v1" PARTNERS_KEY="$key" PARTNERS_SOURCE_INSTITUTION="$source_institution" \
  PARTNERS_TARGET_INSTITUTION="$target_institution" \
  mvn -B --no-transfer-progress -f test/partners/java/pom.xml test

step "Python: run the client against the server"
python_ready() { python3 -c 'import pydantic, urllib3, dateutil, typing_extensions; assert int(pydantic.VERSION.split(".")[0]) >= 2' 2>/dev/null; }
if ! python_ready; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pydantic python3-urllib3 python3-dateutil python3-typing-extensions >/dev/null || true
fi
python_ready || { echo "The Python client needs pydantic 2, urllib3, python-dateutil and typing_extensions (python3 -m pip install -r dist/partners/python/requirements.txt)." >&2; exit 1; }
PYTHONPATH=dist/partners/python PARTNERS_API="$origin/api/v1" PARTNERS_KEY="$key" \
  PARTNERS_SOURCE_INSTITUTION="$source_institution" PARTNERS_TARGET_INSTITUTION="$target_institution" \
  python3 -m unittest discover -s test/partners/python -v

step "TypeScript: compile the client with tsc --strict"
npx tsc --noEmit --strict --target es2022 --module esnext --moduleResolution bundler --lib es2022,dom \
  dist/partners/typescript-fetch/src/index.ts
echo "dist/partners/typescript-fetch compiles with --strict"

step "Done"
echo "partners' clients: 5 generated without a finding, Java and Python run against the server, TypeScript compiled in $(($(date +%s) - started)) s"
