#!/bin/sh
# Reruns the side-by-side comparison (io.slime4j.bench.Compare) and regenerates its table and plot:
# docs/img/compare.md, docs/img/compare.png and the marked table in docs/PERFORMANCE.md.
# Extra arguments go to Compare (e.g. --systems slime4j,tcp --messages 50000); see docs/PERFORMANCE.md.
# JUCX needs Debian's libucx0 (1.13.1): installed here when missing and we are root with apt-get;
# without it JUCX is reported as skipped, with the reason.
set -eu
cd "$(dirname "$0")/.."
. ./.mvn/jdk25.sh
if ! ldconfig -p 2>/dev/null | grep -q 'libucp\.so\.0'; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q libucx0 >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q libucx0 >/dev/null 2>&1; } \
      || echo "compare.sh: could not install libucx0; JUCX will be reported as skipped" >&2
  else
    echo "compare.sh: libucx0 is not installed (apt-get install libucx0); JUCX will be reported as skipped" >&2
  fi
fi
./mvnw -q -pl slime4j-bench -am install -DskipTests
exec "$JAVA_HOME/bin/java" -cp "slime4j-bench/target/slime4j-bench-0.1.0-SNAPSHOT.jar:slime4j-bench/target/lib/*" \
  io.slime4j.bench.Compare --out docs/img --doc docs/PERFORMANCE.md "$@"
