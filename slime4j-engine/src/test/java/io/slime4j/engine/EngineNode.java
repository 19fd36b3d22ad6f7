package io.slime4j.engine;

import io.slime4j.endpoint.Assignment;
import io.slime4j.endpoint.TransferFuture;
import io.slime4j.endpoint.TransferStatus;
import io.slime4j.engine.directory.Directories;
import io.slime4j.engine.directory.Directory;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test process holding several engines, driven line by line on stdin by {@link ClusterTest};
 * answers start with '@' on stdout. Engines are named {@code n<node>e<k>}; engine number
 * {@code node * perNode + k} fills its "src" with a pattern of (number, round), writes it into every
 * peer's "dst" at its number's slice and reads every peer's "src" into its "rd" at the peer's slice.
 */
public final class EngineNode {
    static final int SLICE = 8 * 1024;

    private EngineNode() {
    }

    static String name(int node, int k) {
        return "n" + node + "e" + k;
    }

    static byte pattern(int engine, int round, long i) {
        return (byte) (i * 131 + engine * 7 + round * 13 + 1);
    }

    static int platformThreads() {
        return (int) Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !t.isVirtual() && t.isAlive() && !t.getName().startsWith("ForkJoinPool")).count();
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        int node = Integer.parseInt(args[1]);
        int nodes = Integer.parseInt(args[2]);
        int perNode = Integer.parseInt(args[3]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[4]));
        int total = nodes * perNode;
        List<String> all = new ArrayList<>();
        for (int n = 0; n < nodes; n++) {
            for (int k = 0; k < perNode; k++) {
                all.add(name(n, k));
            }
        }
        Directory dir = Directories.open(url);
        Arena arena = Arena.ofShared();
        List<TransferEngine> engines = new ArrayList<>();
        List<MemorySegment> src = new ArrayList<>();
        List<MemorySegment> dst = new ArrayList<>();
        List<MemorySegment> rd = new ArrayList<>();
        for (int k = 0; k < perNode; k++) {
            TransferEngine e = TransferEngine.builder(name(node, k), dir).lease(lease)
                    .progressIdlePark(Duration.ofMillis(2)) // 8 engines per process on a shared 2-core machine
                    .connectTimeout(lease.minusSeconds(1)).start();
            MemorySegment s = arena.allocate(SLICE);
            MemorySegment d = arena.allocate((long) SLICE * total);
            MemorySegment r = arena.allocate((long) SLICE * total);
            e.register("src", s);
            e.register("dst", d);
            e.register("rd", r);
            engines.add(e);
            src.add(s);
            dst.add(d);
            rd.add(r);
        }
        System.out.println("@READY " + ProcessHandle.current().pid() + " " + platformThreads());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            String[] c = line.trim().split(" ");
            switch (c[0]) {
                case "FILL" -> {
                    int round = Integer.parseInt(c[1]);
                    for (int k = 0; k < perNode; k++) {
                        int me = node * perNode + k;
                        for (long i = 0; i < SLICE; i++) {
                            src.get(k).set(ValueLayout.JAVA_BYTE, i, pattern(me, round, i));
                        }
                        dst.get(k).fill((byte) 0);
                        rd.get(k).fill((byte) 0);
                    }
                    System.out.println("@FILLED");
                }
                case "ROUND" -> {
                    AtomicInteger ok = new AtomicInteger();
                    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
                    List<Thread> ts = new ArrayList<>();
                    for (int k = 0; k < perNode; k++) {
                        int kk = k;
                        int me = node * perNode + k;
                        ts.add(Thread.ofPlatform().start(() -> {
                            List<TransferFuture> fs = new ArrayList<>();
                            List<String> to = new ArrayList<>();
                            for (int step = 1; step < total; step++) {
                                int j = (me + step) % total; // each engine starts with its successor: no herd on one
                                String peer = all.get(j);
                                try {
                                    fs.add(engines.get(kk).write(peer, List.of(new Assignment("src", 0, "dst",
                                            (long) me * SLICE, SLICE))));
                                    to.add(peer);
                                    fs.add(engines.get(kk).read(peer, List.of(new Assignment("rd", (long) j * SLICE,
                                            "src", 0, SLICE))));
                                    to.add(peer);
                                } catch (RuntimeException ex) {
                                    failures.add(engines.get(kk).name() + "->" + peer + ": " + ex.getMessage());
                                }
                            }
                            for (int i = 0; i < fs.size(); i++) {
                                try {
                                    if (fs.get(i).await(Duration.ofSeconds(30)) == TransferStatus.SUCCESS) {
                                        ok.incrementAndGet();
                                    } else {
                                        failures.add(engines.get(kk).name() + "->" + to.get(i) + ": "
                                                + fs.get(i).failureMessage());
                                    }
                                } catch (Exception ex) {
                                    failures.add(engines.get(kk).name() + "->" + to.get(i) + ": " + ex);
                                }
                            }
                        }));
                    }
                    for (Thread t : ts) {
                        t.join();
                    }
                    long shm = engines.stream().mapToLong(e -> e.connectedPeers().stream()
                            .filter(p -> e.transport(p).orElse(null) == PeerTransport.SHM).count()).sum();
                    System.out.println("@ROUND ok=" + ok.get() + " failed=" + failures.size() + " threads="
                            + platformThreads() + " shm=" + shm + " connections="
                            + engines.stream().mapToLong(e -> e.connectedPeers().size()).sum() + " " + failures.stream().limit(3).toList());
                }
                case "VERIFY" -> {
                    int round = Integer.parseInt(c[1]);
                    int bad = 0;
                    for (int k = 0; k < perNode; k++) {
                        int me = node * perNode + k;
                        for (int j = 0; j < total; j++) {
                            if (j == me) {
                                continue;
                            }
                            for (long i = 0; i < SLICE; i++) {
                                byte want = pattern(j, round, i);
                                if (dst.get(k).get(ValueLayout.JAVA_BYTE, (long) j * SLICE + i) != want
                                        || rd.get(k).get(ValueLayout.JAVA_BYTE, (long) j * SLICE + i) != want) {
                                    bad++;
                                    break;
                                }
                            }
                        }
                    }
                    System.out.println("@VERIFY bad=" + bad);
                }
                case "HANG" -> { // a recv from the peer nobody will match: reports when it ends
                    String peer = c[1];
                    TransferFuture f = engines.get(0).recv(peer, "rd", 0, 16);
                    long t0 = System.nanoTime();
                    Thread.ofPlatform().daemon().start(() -> {
                        try {
                            TransferStatus s = f.await(Duration.ofSeconds(60));
                            System.out.println("@HANGEND " + s + " " + (System.nanoTime() - t0) / 1_000_000);
                        } catch (Exception ex) {
                            System.out.println("@HANGEND " + ex + " -1");
                        }
                    });
                    System.out.println("@HANGING");
                }
                case "PROBE" -> {
                    long t0 = System.nanoTime();
                    String result;
                    try {
                        TransferStatus s = engines.get(0).write(c[1], List.of(new Assignment("src", 0, "dst", 0, 16)))
                                .await(Duration.ofSeconds(60));
                        result = s.toString();
                    } catch (Exception ex) {
                        result = "THREW " + ex.getClass().getSimpleName();
                    }
                    System.out.println("@PROBE " + result + " " + (System.nanoTime() - t0) / 1_000_000);
                }
                case "EXIT" -> {
                    engines.forEach(TransferEngine::close);
                    dir.close();
                    System.out.println("@BYE");
                    System.exit(0);
                }
                default -> System.out.println("@UNKNOWN " + line);
            }
        }
        System.exit(0);
    }
}
