package io.slime4j.bench;

import io.slime4j.endpoint.Assignment;
import io.slime4j.endpoint.TransferStatus;
import io.slime4j.engine.TransferEngine;
import io.slime4j.engine.directory.Directories;
import io.slime4j.engine.directory.Directory;
import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The engine's connection cost and directory load, for each directory URL given, in one run:
 * the time from the first write of 4 KiB to a peer the engine has never talked to until it
 * completes (lookup + handshake + transfer), next to a write on the connection once made (the
 * baseline of the same run), medians of fresh engines alternated with warm writes; and the
 * requests per second an idle engine sends its directory with the default lease and heartbeat.
 *
 * <pre>java -cp ... io.slime4j.bench.EngineBench [--trials N] [--idle-seconds S] URL...</pre>
 */
public final class EngineBench {
    private EngineBench() {
    }

    public static void main(String[] args) throws Exception {
        int trials = 15;
        int idleSeconds = 10;
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--trials" -> trials = Integer.parseInt(args[++i]);
                case "--idle-seconds" -> idleSeconds = Integer.parseInt(args[++i]);
                default -> urls.add(args[i]);
            }
        }
        if (urls.isEmpty()) {
            urls.add(Directories.defaultUrl());
        }
        System.out.printf("%-34s %14s %14s %8s %16s%n", "directory", "first write", "warm write", "ratio",
                "idle req/s/eng");
        for (String url : urls) {
            run(url, trials, idleSeconds);
        }
    }

    private static void run(String url, int trials, int idleSeconds) throws Exception {
        List<Long> first = new ArrayList<>();
        List<Long> warm = new ArrayList<>();
        try (Directory dir = Directories.open(url);
             Arena arena = Arena.ofShared();
             TransferEngine b = TransferEngine.builder("bench-b", dir).start()) {
            b.register("kv", arena.allocate(1 << 20));
            for (int t = 0; t < trials; t++) {
                try (TransferEngine a = TransferEngine.builder("bench-a" + t, dir).start()) {
                    a.register("kv", arena.allocate(4096));
                    List<Assignment> w = List.of(Assignment.local("kv", 0).remote("kv", 0).length(4096));
                    long t0 = System.nanoTime();
                    check(a.write("bench-b", w).await(Duration.ofSeconds(30)));
                    first.add(System.nanoTime() - t0);
                    long t1 = System.nanoTime();
                    check(a.write("bench-b", w).await(Duration.ofSeconds(30)));
                    warm.add(System.nanoTime() - t1);
                }
            }
        }
        double idle;
        try (Directory own = Directories.open(url);
             TransferEngine e = TransferEngine.builder("bench-idle", own).start()) {
            long r0 = own.requests();
            Thread.sleep(idleSeconds * 1000L);
            idle = (own.requests() - r0) / (double) idleSeconds;
        }
        long f = median(first);
        long w = median(warm);
        System.out.printf("%-34s %11.2f ms %11.3f ms %7.0fx %16.2f%n", url, f / 1e6, w / 1e6, f / (double) w, idle);
    }

    private static void check(TransferStatus s) {
        if (s != TransferStatus.SUCCESS) {
            throw new IllegalStateException("write ended " + s);
        }
    }

    private static long median(List<Long> xs) {
        List<Long> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }
}
