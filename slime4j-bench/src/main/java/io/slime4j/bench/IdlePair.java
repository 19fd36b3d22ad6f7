package io.slime4j.bench;

import io.slime4j.endpoint.Assignment;
import io.slime4j.endpoint.Bootstrap;
import io.slime4j.endpoint.BootstrapSession;
import io.slime4j.endpoint.EndpointConfig;
import io.slime4j.endpoint.RdmaEndpoint;
import io.slime4j.soft.SoftConfig;
import io.slime4j.soft.SoftDevice;
import io.slime4j.wire.udp.UdpWire;
import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * An idle connected pair for measuring what an idle engine costs: two devices and two endpoints in
 * one JVM over UDP loopback, connected through the TCP bootstrap at {@code PORT}, one 64 B write,
 * then nothing for {@code SECONDS}. Prints its pid once connected; read utime+stime of
 * {@code /proc/PID/stat} over 10 s from outside (docs/PERFORMANCE.md, issue 19). Arguments: PORT SECONDS.
 */
public class IdlePair {
    public static void main(String[] a) throws Exception {
        int port = Integer.parseInt(a[0]);
        Duration W = Duration.ofSeconds(30);
        try (UdpWire wire = new UdpWire();
             SoftDevice d1 = SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.defaults());
             SoftDevice d2 = SoftDevice.open(wire, "udp:127.0.0.1:0", SoftConfig.defaults());
             Arena arena = Arena.ofShared();
             RdmaEndpoint e1 = RdmaEndpoint.open(d1, EndpointConfig.fromEnvironment());
             RdmaEndpoint e2 = RdmaEndpoint.open(d2, EndpointConfig.fromEnvironment())) {
            e1.register("buf", arena.allocate(4096, 4096));
            e2.register("buf", arena.allocate(4096, 4096));
            ExecutorService ex = Executors.newSingleThreadExecutor();
            Future<BootstrapSession> srv = ex.submit(() -> Bootstrap.serve(e1, "127.0.0.1", port, W));
            try (BootstrapSession c = Bootstrap.connect(e2, "127.0.0.1", port, W); BootstrapSession s = srv.get()) {
                e2.write(Assignment.local("buf", 0).remote("buf", 0).length(64)).join(W);
                System.out.println("connected; idle " + ProcessHandle.current().pid());
                Thread.sleep(Long.parseLong(a[1]) * 1000);
            }
            ex.shutdown();
        }
    }
}
