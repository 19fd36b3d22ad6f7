/**
 * slime4j core: the verbs API, the software RC engine and the wires. Depends on slf4j-api and
 * jackson-jr (JSON of endpoint info and bootstrap frames) only, and needs no JVM flags; {@code --enable-native-access=io.slime4j.core} (or {@code =ALL-UNNAMED}
 * on the class path) lets the UDP wire use its faster native backend.
 */
module io.slime4j.core {
    requires org.slf4j;
    requires com.fasterxml.jackson.jr.ob;
    requires com.fasterxml.jackson.core;
    requires java.management;
    requires jdk.net;

    exports io.slime4j.verbs;
    exports io.slime4j.endpoint;
    exports io.slime4j.soft;
    exports io.slime4j.wire;
    exports io.slime4j.wire.inproc;
    exports io.slime4j.wire.udp;
}
