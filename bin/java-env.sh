# Sourced by ./cluster and .ci/run: finds a JDK 21 or newer and exports JAVA_HOME and PATH for it.
# Order: $JAVA_HOME, the `java` on PATH, then the usual install folders (newest first).
# Fails with a message that says what to install or set.

_shardstore_java_major() {  # prints the feature version of the java binary $1, or nothing
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n 1
}

_shardstore_find_jdk() {
  local candidates=() home major
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  if command -v java >/dev/null 2>&1; then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")")
  fi
  for home in $(ls -d /usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/* \
                     "$HOME"/.jdks/* /Library/Java/JavaVirtualMachines/*/Contents/Home 2>/dev/null | sort -rV); do
    candidates+=("$home")
  done
  for home in "${candidates[@]}"; do
    [ -x "$home/bin/java" ] && [ -x "$home/bin/javac" ] || continue
    major=$(_shardstore_java_major "$home/bin/java")
    if [ -n "$major" ] && [ "$major" -ge 21 ]; then
      echo "$home"
      return 0
    fi
  done
  return 1
}

if ! SHARDSTORE_JDK=$(_shardstore_find_jdk); then
  echo "shardstore needs a JDK 21 or newer (java and javac). None was found in JAVA_HOME, on PATH or under /usr/lib/jvm." >&2
  echo "Install one (for example: apt-get install openjdk-21-jdk-headless) or set JAVA_HOME to it." >&2
  return 1 2>/dev/null || exit 1
fi
export JAVA_HOME="$SHARDSTORE_JDK"
export PATH="$JAVA_HOME/bin:$PATH"
