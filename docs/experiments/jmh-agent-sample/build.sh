#!/usr/bin/env bash
# Builds the sample's benchmarks jar (target/benchmarks.jar) with javac and JMH's annotation processor, as a user's
# build would, from the JMH jars in ~/.m2 (./numaloom has fetched them). Usage: docs/experiments/jmh-agent-sample/build.sh
set -euo pipefail
cd "$(dirname "$0")"
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
M2=${M2:-$HOME/.m2/repository}
CP="$M2/org/openjdk/jmh/jmh-core/1.37/jmh-core-1.37.jar:$M2/org/openjdk/jmh/jmh-generator-annprocess/1.37/jmh-generator-annprocess-1.37.jar:$M2/net/sf/jopt-simple/jopt-simple/5.0.4/jopt-simple-5.0.4.jar:$M2/org/apache/commons/commons-math3/3.6.1/commons-math3-3.6.1.jar"
rm -rf target && mkdir -p target/classes target/unpacked
"$JAVA_HOME/bin/javac" -nowarn -d target/classes -cp "$CP" -processorpath "$CP" \
    -processor org.openjdk.jmh.generators.BenchmarkProcessor src/org/example/OrderBook.java
(cd target/unpacked && for j in ${CP//:/ }; do "$JAVA_HOME/bin/jar" xf "$j"; done && rm -rf META-INF/*.SF META-INF/*.RSA META-INF/*.DSA)
cp -r target/classes/. target/unpacked/
"$JAVA_HOME/bin/jar" --create --file target/benchmarks.jar --main-class org.openjdk.jmh.Main -C target/unpacked .
echo "target/benchmarks.jar"
