# Sourced (POSIX sh) by ./mvnw and ./slime4j: points JAVA_HOME at a JDK 25 or newer without
# anyone exporting anything. Order: $JAVA_HOME, the javac on PATH, then the usual install folders.
# Fails with one clear line when no JDK 25 exists.
slime4j_jdk_major() { # prints the feature version of the JDK at $1, or nothing
  if [ -x "$1/bin/javac" ] && [ -f "$1/release" ]; then
    sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release"
  fi
}
slime4j_find_jdk25() {
  slime4j_path_javac=""
  if command -v javac >/dev/null 2>&1; then
    slime4j_path_javac=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
  fi
  for slime4j_c in "${JAVA_HOME-}" "$slime4j_path_javac" /usr/lib/jvm/* /opt/java/* /opt/jdk* \
      "$HOME"/.sdkman/candidates/java/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    [ -n "$slime4j_c" ] && [ -d "$slime4j_c" ] || continue
    slime4j_major=$(slime4j_jdk_major "$slime4j_c")
    if [ -n "$slime4j_major" ] && [ "$slime4j_major" -ge 25 ]; then
      echo "$slime4j_c"
      return 0
    fi
  done
  return 1
}
if SLIME4J_JDK=$(slime4j_find_jdk25); then
  JAVA_HOME="$SLIME4J_JDK"
  export JAVA_HOME
else
  echo "slime4j needs a JDK 25 or newer: none found in JAVA_HOME, on PATH or under /usr/lib/jvm; install one (e.g. Temurin 25) or set JAVA_HOME to it." >&2
  exit 1
fi
